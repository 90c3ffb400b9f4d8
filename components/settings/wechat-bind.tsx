"use client";
// Binding WeChat from personal settings: the same code modal as the login page, then
// GET /api/oauth/wechat/bind with the code.
import { Button } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { WeChatCodeModal } from "@/components/auth/wechat-code-modal";
import { api } from "@/lib/client/api";
import { showSuccess } from "@/lib/client/notify";
import type { SiteStatus } from "@/lib/ui/site-status";

export function WeChatBindButton({ status, onBound }: { status: SiteStatus; onBound: () => void }) {
  const [opened, { open, close }] = useDisclosure(false);

  const bind = async (code: string) => {
    const res = await api("GET", `/api/oauth/wechat/bind?${new URLSearchParams({ code })}`);
    if (!res.success) return false;
    showSuccess(res.message || "微信账号绑定成功");
    close();
    onBound();
    return true;
  };

  return (
    <>
      <Button size="compact-sm" variant="light" color="green" onClick={open}>
        绑定微信
      </Button>
      <WeChatCodeModal
        opened={opened}
        onClose={close}
        title="绑定微信账号"
        qrcode={status.wechat_qrcode ?? ""}
        submitLabel="绑定"
        onSubmit={bind}
      />
    </>
  );
}
