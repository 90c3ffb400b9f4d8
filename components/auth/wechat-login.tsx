"use client";
// The login page's WeChat button: the code modal, then GET /api/oauth/wechat with the code and the
// aff code kept from an invitation link (a new account gets the invitation rewards). Signed in, the
// user is stored and /token opens; with two-factor on, the login page's code step comes next.
import { Button } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useRouter } from "next/navigation";
import { WeChatCodeModal } from "@/components/auth/wechat-code-modal";
import { api } from "@/lib/client/api";
import { readAff } from "@/lib/client/storage";
import { finishSignIn, type SignInAnswer } from "@/lib/client/third-party-sign-in";
import type { SiteStatus } from "@/lib/ui/site-status";

export function WeChatLoginButton({ status }: { status: SiteStatus }) {
  const router = useRouter();
  const [opened, { open, close }] = useDisclosure(false);

  const signIn = async (code: string) => {
    const query = new URLSearchParams({ code, aff: readAff() });
    const res = await api<SignInAnswer>("GET", `/api/oauth/wechat?${query}`, undefined, { redirectOn401: false });
    if (!res.success) return false;
    close();
    router.push(finishSignIn(res.data));
    return true;
  };

  return (
    <>
      <Button variant="default" color="green" onClick={open}>
        微信
      </Button>
      <WeChatCodeModal
        opened={opened}
        onClose={close}
        title="微信扫码登录"
        qrcode={status.wechat_qrcode ?? ""}
        submitLabel="登录"
        onSubmit={signIn}
      />
    </>
  );
}
