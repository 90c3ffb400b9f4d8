"use client";
// Password login (spec §2, §5): required fields, Turnstile first when enabled, the expired-session
// notice, `aff` kept for a later registration; on success the user is stored and /token opens.
// An account with two-factor on is asked for its code next (components/auth/two-factor-step.tsx),
// as is a browser sent to /login?step=2fa by a third-party sign-in.
import { Alert, Anchor, Button, Group, PasswordInput, Stack, Text, TextInput } from "@mantine/core";
import { schemaResolver, useForm } from "@mantine/form";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { AuthCard } from "@/components/auth/auth-card";
import { PasskeyLogin } from "@/components/auth/passkey-login";
import { ThirdPartyLogins } from "@/components/auth/third-party-logins";
import { TwoFactorStep } from "@/components/auth/two-factor-step";
import { TurnstileWidget } from "@/components/auth/turnstile-widget";
import { useTurnstile } from "@/components/auth/use-turnstile";
import { api } from "@/lib/client/api";
import { useSiteStatus } from "@/lib/client/hooks";
import { showError, showSuccess } from "@/lib/client/notify";
import { clearUser, readUser, writeAff, writeUser } from "@/lib/client/storage";
import type { StoredUser } from "@/lib/client/types";
import { TEXT } from "@/lib/ui/api-errors";
import { loginFormSchema, type LoginFormValues } from "@/lib/ui/auth-schemas";
import { EXPIRED_LOGIN_PATH } from "@/lib/auth/route-access";

type LoginFormProps = { expired: boolean; signedIn: boolean; aff: string; twoFactor?: boolean };

export function LoginForm({ expired, signedIn, aff, twoFactor = false }: LoginFormProps) {
  const router = useRouter();
  const [step, setStep] = useState<"password" | "code">(twoFactor ? "code" : "password");
  const status = useSiteStatus();
  const turnstile = useTurnstile(status);
  const [submitting, setSubmitting] = useState(false);
  const form = useForm<LoginFormValues>({
    mode: "controlled",
    initialValues: { username: "", password: "" },
    validate: schemaResolver(loginFormSchema, { sync: true }),
  });

  useEffect(() => {
    if (aff) writeAff(aff);
    if (expired) clearUser();
  }, [aff, expired]);

  // Sent to the plain login page while the console still holds a stored user whose session is
  // gone (its cookies cleared by hand): that is an expired session too (spec §4). Forgetting the
  // user also takes the side menu and the avatar out of the frame around this form.
  // biome-ignore lint/correctness/useExhaustiveDependencies: checked once, when the page opens
  useEffect(() => {
    if (expired || signedIn || twoFactor || !readUser()) return;
    clearUser();
    router.replace(EXPIRED_LOGIN_PATH);
  }, []);

  const passwordLoginOff = status?.password_login_enabled === false;

  const submit = async (values: LoginFormValues) => {
    if (!turnstile.ready()) return;
    setSubmitting(true);
    const res = await api<StoredUser>(
      "POST",
      `/api/user/login?turnstile=${encodeURIComponent(turnstile.token)}`,
      { username: values.username.trim(), password: values.password },
      { redirectOn401: false },
    );
    setSubmitting(false);
    if (!res.success) return;
    if ((res.data as { require_2fa?: boolean }).require_2fa) return setStep("code");
    writeUser(res.data);
    showSuccess("登录成功！");
    router.push("/token");
  };

  if (step === "code") {
    return (
      <TwoFactorStep
        onBack={() => {
          setStep("password");
          if (twoFactor) router.replace("/login");
        }}
      />
    );
  }

  return (
    <AuthCard title="用户登录">
      {expired && (
        <Alert color="yellow" mb="md" data-testid="expired-notice">
          {TEXT.expired}
        </Alert>
      )}
      {passwordLoginOff ? (
        <Alert color="gray" mb="md">
          管理员关闭了密码登录
        </Alert>
      ) : (
        <form
          noValidate
          onSubmit={form.onSubmit(submit, (errors) => {
            const first = Object.values(errors)[0];
            if (first) showError(String(first));
          })}
        >
          <Stack gap="sm">
            <TextInput
              label="用户名"
              placeholder="用户名或邮箱"
              autoComplete="username"
              name="username"
              key={form.key("username")}
              {...form.getInputProps("username")}
              error={!!form.errors.username}
            />
            <PasswordInput
              label="密码"
              placeholder="密码"
              autoComplete="current-password"
              name="password"
              key={form.key("password")}
              {...form.getInputProps("password")}
              error={!!form.errors.password}
            />
            <Button type="submit" fullWidth size="md" mt="xs" loading={submitting}>
              登录
            </Button>
          </Stack>
        </form>
      )}
      <PasskeyLogin />
      <Group justify="space-between" mt="md" gap="xs">
        {status?.register_enabled !== false && (
          <Text size="sm">
            没有账户？{" "}
            <Anchor component={Link} href="/register">
              点击注册
            </Anchor>
          </Text>
        )}
        <Text size="sm">
          忘记密码？{" "}
          <Anchor component={Link} href="/reset">
            点击重置
          </Anchor>
        </Text>
      </Group>
      <ThirdPartyLogins status={status} />
      {turnstile.enabled && <TurnstileWidget siteKey={turnstile.siteKey} onToken={turnstile.onToken} />}
    </AuthCard>
  );
}
