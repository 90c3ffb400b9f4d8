"use client";
// The second step of signing in to an account with two-factor on: after the password (or a
// third-party sign-in, whose callback page opens /login?step=2fa) the server holds a pending
// sign-in for five minutes, and a TOTP code or a backup code finishes it (POST
// /api/user/login/2fa). Success is the login's: the user is stored, 登录成功！, /token.
import { Anchor, Button, Center, PinInput, Stack, Switch, Text, TextInput } from "@mantine/core";
import { useRouter } from "next/navigation";
import { type FormEvent, useRef, useState } from "react";
import { AuthCard } from "@/components/auth/auth-card";
import { api } from "@/lib/client/api";
import { showError, showSuccess } from "@/lib/client/notify";
import { writeUser } from "@/lib/client/storage";
import type { StoredUser } from "@/lib/client/types";

export const TWO_FACTOR_STEP_TEXT = {
  title: "两步验证",
  totp: "请打开身份验证器应用，输入其中显示的 6 位验证码。",
  backup: "请输入一个备用码。每个备用码只能使用一次。",
  needTotp: "请输入 6 位验证码",
  needBackup: "请输入备用码",
} as const;

const CODE_LENGTH = 6;

export function TwoFactorStep({ onBack }: { onBack: () => void }) {
  const router = useRouter();
  const [backup, setBackup] = useState(false);
  const [code, setCode] = useState("");
  const [submitting, setSubmitting] = useState(false);
  // PinInput submits on its own when the sixth digit is typed; the button may be pressed meanwhile.
  const inFlight = useRef(false);

  const verify = async (typed: string) => {
    if (inFlight.current) return;
    const value = typed.trim();
    if (backup ? !value : value.length !== CODE_LENGTH) {
      showError(backup ? TWO_FACTOR_STEP_TEXT.needBackup : TWO_FACTOR_STEP_TEXT.needTotp);
      return;
    }
    inFlight.current = true;
    setSubmitting(true);
    const res = await api<StoredUser>("POST", "/api/user/login/2fa", { code: value }, { redirectOn401: false });
    inFlight.current = false;
    setSubmitting(false);
    if (!res.success) {
      setCode("");
      // The pending sign-in is gone (timed out, or the account changed): start again.
      if (res.httpStatus === 401) onBack();
      return;
    }
    writeUser(res.data);
    showSuccess("登录成功！");
    router.push("/token");
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void verify(code);
  };

  return (
    <AuthCard title={TWO_FACTOR_STEP_TEXT.title}>
      <form noValidate onSubmit={submit}>
        <Stack gap="md">
          <Text size="sm" c="dimmed">
            {backup ? TWO_FACTOR_STEP_TEXT.backup : TWO_FACTOR_STEP_TEXT.totp}
          </Text>
          {backup ? (
            <TextInput
              label="备用码"
              placeholder="XXXX-XXXX"
              autoComplete="off"
              spellCheck={false}
              value={code}
              onChange={(e) => setCode(e.currentTarget.value)}
              autoFocus
            />
          ) : (
            <Center>
              <PinInput
                length={CODE_LENGTH}
                type="number"
                inputMode="numeric"
                oneTimeCode
                autoFocus
                size="md"
                ariaLabel="验证码"
                value={code}
                onChange={setCode}
                onComplete={(value) => void verify(value)}
              />
            </Center>
          )}
          <Switch
            label="使用备用码"
            checked={backup}
            onChange={(e) => {
              setBackup(e.currentTarget.checked);
              setCode("");
            }}
          />
          <Button type="submit" fullWidth size="md" loading={submitting}>
            验证
          </Button>
          <Text size="sm" ta="center">
            <Anchor component="button" type="button" onClick={onBack}>
              返回登录
            </Anchor>
          </Text>
        </Stack>
      </form>
    </AuthCard>
  );
}
