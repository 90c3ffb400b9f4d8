"use client";
// The step-up dialog: revealing a channel key, a new access token and changing two-factor need the
// caller to have proved who they are within the last five minutes. The api client opens this
// dialog when a call is refused for that (lib/client/step-up.ts) and sends the call again once the
// user verified with the password, a two-factor code (or backup code) or a passkey. Only the ways
// the account has are offered (GET /api/verify).
import { Alert, Button, Divider, Loader, Modal, PasswordInput, SegmentedControl, Stack, Text } from "@mantine/core";
import { type FormEvent, useEffect, useState } from "react";
import { SecondFactorInput } from "@/components/auth/second-factor-input";
import type { StepUpMethods } from "@/lib/accounts/step-up";
import { api } from "@/lib/client/api";
import { showError } from "@/lib/client/notify";
import { passkeySupported, verifyWithPasskey } from "@/lib/client/passkey";
import { setStepUpAsker } from "@/lib/client/step-up";

export const STEP_UP_TEXT = {
  title: "验证身份",
  intro: "此操作涉及敏感信息，请先验证身份。验证后 5 分钟内无需再次验证。",
  none: "该账户还没有密码、两步验证或通行密钥：请退出后重新登录（登录后 5 分钟内无需再次验证），或在个人设置中设置密码、添加通行密钥。",
  passkey: "使用通行密钥验证",
  passkeyFailed: "通行密钥验证未完成，请重试或使用其他方式",
} as const;

/** Mounted once (components/providers.tsx): the dialog the api client asks through. */
export function StepUpHost() {
  const [request, setRequest] = useState<{ resolve: (verified: boolean) => void } | null>(null);

  useEffect(() => {
    setStepUpAsker(() => new Promise<boolean>((resolve) => setRequest({ resolve })));
    return () => setStepUpAsker(null);
  }, []);

  const finish = (verified: boolean) => {
    request?.resolve(verified);
    setRequest(null);
  };

  return (
    <Modal opened={request !== null} onClose={() => finish(false)} title={STEP_UP_TEXT.title} centered closeOnClickOutside={false}>
      {request && <StepUpForm onVerified={() => finish(true)} />}
    </Modal>
  );
}

type Way = "password" | "2fa";

function StepUpForm({ onVerified }: { onVerified: () => void }) {
  const [methods, setMethods] = useState<StepUpMethods | null>(null);
  const [way, setWay] = useState<Way>("password");
  const [value, setValue] = useState("");
  const [busy, setBusy] = useState(false);
  const [passkeyBusy, setPasskeyBusy] = useState(false);

  useEffect(() => {
    api<StepUpMethods>("GET", "/api/verify").then((res) => {
      if (!res.success) return;
      setMethods(res.data);
      setWay(res.data.password ? "password" : "2fa");
    });
  }, []);

  if (!methods) {
    return (
      <Stack align="center" py="md">
        <Loader size="sm" />
      </Stack>
    );
  }

  const ways: { value: Way; label: string }[] = [
    ...(methods.password ? [{ value: "password" as const, label: "密码" }] : []),
    ...(methods.two_factor ? [{ value: "2fa" as const, label: "两步验证码" }] : []),
  ];
  const passkey = methods.passkey && passkeySupported();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const typed = value.trim();
    if (!typed) return showError(way === "password" ? "请输入密码" : "请输入验证码");
    setBusy(true);
    const body = way === "password" ? { method: "password", password: value } : { method: "2fa", code: typed };
    const res = await api("POST", "/api/verify", body);
    setBusy(false);
    if (res.success) onVerified();
    else setValue("");
  };

  const withPasskey = async () => {
    setPasskeyBusy(true);
    const ok = await verifyWithPasskey().catch(() => false);
    setPasskeyBusy(false);
    if (ok) onVerified();
    else showError(STEP_UP_TEXT.passkeyFailed);
  };

  return (
    <Stack gap="sm">
      <Text size="sm" c="dimmed">
        {STEP_UP_TEXT.intro}
      </Text>
      {ways.length === 0 && !passkey && (
        <Alert color="yellow" variant="light">
          {STEP_UP_TEXT.none}
        </Alert>
      )}
      {ways.length > 1 && (
        <SegmentedControl
          fullWidth
          data={ways}
          value={way}
          onChange={(v) => {
            setWay(v as Way);
            setValue("");
          }}
        />
      )}
      {ways.length > 0 && (
        <form onSubmit={submit} noValidate>
          <Stack gap="sm">
            {way === "password" ? (
              <PasswordInput
                label="密码"
                autoComplete="current-password"
                value={value}
                onChange={(e) => setValue(e.currentTarget.value)}
                data-autofocus
              />
            ) : (
              <SecondFactorInput value={value} onChange={setValue} />
            )}
            <Button type="submit" loading={busy} fullWidth>
              验证
            </Button>
          </Stack>
        </form>
      )}
      {passkey && (
        <>
          {ways.length > 0 && <Divider label="或" labelPosition="center" />}
          <Button variant="default" fullWidth loading={passkeyBusy} onClick={withPasskey}>
            {STEP_UP_TEXT.passkey}
          </Button>
        </>
      )}
    </Stack>
  );
}
