"use client";
// "使用通行密钥登录" on the login page: a discoverable passkey names the account, so no username
// or password is typed, and no TOTP code follows (the authenticator verified its user). Shown only
// where the browser has WebAuthn, known after mount (the server cannot tell).
import { Button } from "@mantine/core";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { showSuccess } from "@/lib/client/notify";
import { passkeySupported, signInWithPasskey } from "@/lib/client/passkey";
import { writeUser } from "@/lib/client/storage";

export function PasskeyLogin() {
  const router = useRouter();
  const [supported, setSupported] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => setSupported(passkeySupported()), []);
  if (!supported) return null;

  const signIn = async () => {
    setBusy(true);
    const user = await signInWithPasskey();
    setBusy(false);
    if (!user) return;
    writeUser(user);
    showSuccess("登录成功！");
    router.push("/token");
  };

  return (
    <Button variant="default" fullWidth size="md" mt="sm" loading={busy} onClick={signIn}>
      使用通行密钥登录
    </Button>
  );
}
