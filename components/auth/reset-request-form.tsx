"use client";
// /reset (spec §2): asks for the account's e-mail address and mails a reset link to it; Turnstile
// first when enabled; the button waits 30 s before another mail (spec §4).
import { Anchor, Button, Stack, Text, TextInput } from "@mantine/core";
import { schemaResolver, useForm } from "@mantine/form";
import Link from "next/link";
import { useState } from "react";
import { z } from "zod";
import { AuthCard } from "@/components/auth/auth-card";
import { TurnstileWidget } from "@/components/auth/turnstile-widget";
import { useCooldown } from "@/components/auth/use-cooldown";
import { useTurnstile } from "@/components/auth/use-turnstile";
import { api } from "@/lib/client/api";
import { useSiteStatus } from "@/lib/client/hooks";
import { showSuccess } from "@/lib/client/notify";
import { emailSchema } from "@/lib/users/email-schemas";

const RESEND_SECONDS = 30;
const schema = z.object({ email: emailSchema });

export function ResetRequestForm() {
  const status = useSiteStatus();
  const turnstile = useTurnstile(status);
  const [sending, setSending] = useState(false);
  const [cooldown, startCooldown] = useCooldown(RESEND_SECONDS);
  const form = useForm({ mode: "controlled", initialValues: { email: "" }, validate: schemaResolver(schema, { sync: true }) });

  const submit = async ({ email }: { email: string }) => {
    if (!turnstile.ready()) return;
    setSending(true);
    const res = await api(
      "GET",
      `/api/reset_password?email=${encodeURIComponent(email.trim())}&turnstile=${encodeURIComponent(turnstile.token)}`,
      undefined,
      { redirectOn401: false },
    );
    setSending(false);
    if (!res.success) return;
    startCooldown();
    showSuccess("重置邮件发送成功，请检查邮箱！");
    form.setValues({ email: "" });
  };

  return (
    <AuthCard title="密码重置">
      <form noValidate onSubmit={form.onSubmit(submit)}>
        <Stack gap="sm">
          <TextInput
            label="邮箱"
            placeholder="邮箱地址"
            type="email"
            autoComplete="email"
            key={form.key("email")}
            {...form.getInputProps("email")}
          />
          <Button type="submit" fullWidth size="md" mt="xs" loading={sending} disabled={cooldown > 0}>
            {cooldown > 0 ? `重试 (${cooldown})` : "提交"}
          </Button>
        </Stack>
      </form>
      <Text size="sm" mt="md">
        想起密码了？{" "}
        <Anchor component={Link} href="/login">
          点击登录
        </Anchor>
      </Text>
      {turnstile.enabled && <TurnstileWidget siteKey={turnstile.siteKey} onToken={turnstile.onToken} />}
    </AuthCard>
  );
}
