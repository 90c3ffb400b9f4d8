"use client";
// Registration (spec §2, §5): username, password and confirmation; e-mail and code only when the
// server requires e-mail verification; Turnstile first when enabled; the invite code from ?aff= or
// local storage. On success the login page opens.
import { Alert, Anchor, Button, PasswordInput, Stack, Text, TextInput } from "@mantine/core";
import { schemaResolver, useForm } from "@mantine/form";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { AuthCard } from "@/components/auth/auth-card";
import { ThirdPartyLogins } from "@/components/auth/third-party-logins";
import { TurnstileWidget } from "@/components/auth/turnstile-widget";
import { useTurnstile } from "@/components/auth/use-turnstile";
import { useCooldown } from "@/components/auth/use-cooldown";
import { api } from "@/lib/client/api";
import { useSiteStatus } from "@/lib/client/hooks";
import { showSuccess } from "@/lib/client/notify";
import { readAff, writeAff } from "@/lib/client/storage";
import { registerFormSchema, type RegisterFormValues } from "@/lib/ui/auth-schemas";

const RESEND_SECONDS = 30;

export function RegisterForm({ aff }: { aff: string }) {
  const router = useRouter();
  const status = useSiteStatus();
  const emailVerification = !!status?.email_verification;
  const turnstile = useTurnstile(status);
  const [submitting, setSubmitting] = useState(false);
  const [sending, setSending] = useState(false);
  const [cooldown, startCooldown] = useCooldown(RESEND_SECONDS);
  const schema = useMemo(() => registerFormSchema(emailVerification), [emailVerification]);

  const form = useForm<RegisterFormValues>({
    mode: "controlled",
    initialValues: { username: "", password: "", password2: "", email: "", verification_code: "" },
    validate: schemaResolver(schema, { sync: true }),
  });

  useEffect(() => {
    if (aff) writeAff(aff);
  }, [aff]);

  const sendCode = async () => {
    const email = form.getValues().email.trim();
    if (!email) {
      form.setFieldError("email", "请输入邮箱地址");
      return;
    }
    if (!turnstile.ready()) return;
    setSending(true);
    const res = await api(
      "GET",
      `/api/verification?email=${encodeURIComponent(email)}&turnstile=${encodeURIComponent(turnstile.token)}`,
      undefined,
      { redirectOn401: false },
    );
    setSending(false);
    if (!res.success) return;
    startCooldown();
    showSuccess("验证码发送成功，请检查你的邮箱！");
  };

  const submit = async (values: RegisterFormValues) => {
    if (!turnstile.ready()) return;
    setSubmitting(true);
    const res = await api(
      "POST",
      `/api/user/register?turnstile=${encodeURIComponent(turnstile.token)}`,
      {
        username: values.username.trim(),
        password: values.password,
        password2: values.password2,
        email: values.email.trim(),
        verification_code: values.verification_code.trim(),
        aff_code: aff || readAff(),
      },
      { redirectOn401: false },
    );
    setSubmitting(false);
    if (!res.success) return;
    showSuccess("注册成功！");
    router.push("/login");
  };

  const closed = status?.register_enabled === false;
  const passwordClosed = status?.password_register_enabled === false;

  return (
    <AuthCard title="新用户注册">
      {closed ? (
        <Alert color="gray">管理员关闭了新用户注册</Alert>
      ) : passwordClosed ? (
        <Alert color="gray">管理员关闭了通过密码进行注册，请使用第三方账户验证的形式进行注册</Alert>
      ) : (
        <form noValidate onSubmit={form.onSubmit(submit)}>
          <Stack gap="sm">
            <TextInput
              label="用户名"
              placeholder="用户名"
              autoComplete="username"
              key={form.key("username")}
              {...form.getInputProps("username")}
            />
            <PasswordInput
              label="密码"
              placeholder="输入密码，最短 8 位，最长 20 位"
              autoComplete="new-password"
              key={form.key("password")}
              {...form.getInputProps("password")}
            />
            <PasswordInput
              label="确认密码"
              placeholder="确认密码"
              autoComplete="new-password"
              key={form.key("password2")}
              {...form.getInputProps("password2")}
            />
            {emailVerification && (
              <>
                <TextInput
                  label="邮箱"
                  placeholder="输入邮箱地址"
                  type="email"
                  autoComplete="email"
                  key={form.key("email")}
                  {...form.getInputProps("email")}
                  rightSectionWidth={110}
                  rightSection={
                    <Button size="compact-sm" variant="light" onClick={sendCode} loading={sending} disabled={cooldown > 0}>
                      {cooldown > 0 ? `重新发送 (${cooldown})` : "获取验证码"}
                    </Button>
                  }
                />
                <TextInput
                  label="验证码"
                  placeholder="输入验证码"
                  key={form.key("verification_code")}
                  {...form.getInputProps("verification_code")}
                />
              </>
            )}
            <Button type="submit" fullWidth size="md" mt="xs" loading={submitting}>
              注册
            </Button>
          </Stack>
        </form>
      )}
      <Text size="sm" mt="md">
        已有账户？{" "}
        <Anchor component={Link} href="/login">
          点击登录
        </Anchor>
      </Text>
      {!closed && <ThirdPartyLogins status={status} />}
      {turnstile.enabled && !closed && <TurnstileWidget siteKey={turnstile.siteKey} onToken={turnstile.onToken} />}
    </AuthCard>
  );
}
