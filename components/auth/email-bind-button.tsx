"use client";
// Binding an e-mail address to one's account (spec §5, §7): the address, a code mailed to it
// (30 s between mails; Turnstile first when enabled), then GET /api/oauth/email/bind.
import { Button, Group, Modal, Stack, TextInput } from "@mantine/core";
import { schemaResolver, useForm } from "@mantine/form";
import { useDisclosure } from "@mantine/hooks";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { z } from "zod";
import { TurnstileWidget } from "@/components/auth/turnstile-widget";
import { useCooldown } from "@/components/auth/use-cooldown";
import { useTurnstile } from "@/components/auth/use-turnstile";
import { api } from "@/lib/client/api";
import { useSiteStatus } from "@/lib/client/hooks";
import { showSuccess } from "@/lib/client/notify";
import { emailSchema } from "@/lib/users/email-schemas";

const RESEND_SECONDS = 30;
const schema = z.object({ email: emailSchema, code: z.string().trim().min(1, "请输入验证码") });

export function EmailBindButton({ bound }: { bound: boolean }) {
  const router = useRouter();
  const status = useSiteStatus();
  const turnstile = useTurnstile(status);
  const [opened, { open, close }] = useDisclosure(false);
  const [sending, setSending] = useState(false);
  const [binding, setBinding] = useState(false);
  const [cooldown, startCooldown] = useCooldown(RESEND_SECONDS);
  const form = useForm({ mode: "controlled", initialValues: { email: "", code: "" }, validate: schemaResolver(schema, { sync: true }) });

  const sendCode = async () => {
    if (form.validateField("email").hasError) return;
    if (!turnstile.ready()) return;
    setSending(true);
    const email = form.getValues().email.trim();
    const res = await api("GET", `/api/verification?email=${encodeURIComponent(email)}&turnstile=${encodeURIComponent(turnstile.token)}`);
    setSending(false);
    if (!res.success) return;
    startCooldown();
    showSuccess("验证码发送成功，请检查你的邮箱！");
  };

  const bind = async (values: { email: string; code: string }) => {
    setBinding(true);
    const res = await api(
      "GET",
      `/api/oauth/email/bind?email=${encodeURIComponent(values.email.trim())}&code=${encodeURIComponent(values.code.trim())}`,
    );
    setBinding(false);
    if (!res.success) return;
    showSuccess(res.message || "邮箱账户绑定成功！");
    close();
    form.reset();
    router.refresh();
  };

  return (
    <>
      <Button size="compact-sm" variant="light" onClick={open}>
        {bound ? "修改绑定" : "绑定邮箱"}
      </Button>
      <Modal opened={opened} onClose={close} title="绑定邮箱地址" centered>
        <form noValidate onSubmit={form.onSubmit(bind)}>
          <Stack gap="sm">
            <TextInput
              label="邮箱"
              placeholder="输入邮箱地址"
              type="email"
              autoComplete="email"
              data-autofocus
              key={form.key("email")}
              {...form.getInputProps("email")}
              rightSectionWidth={110}
              rightSection={
                <Button size="compact-sm" variant="light" onClick={sendCode} loading={sending} disabled={cooldown > 0}>
                  {cooldown > 0 ? `重新发送 (${cooldown})` : "获取验证码"}
                </Button>
              }
            />
            <TextInput label="验证码" placeholder="验证码" key={form.key("code")} {...form.getInputProps("code")} />
            {turnstile.enabled && <TurnstileWidget siteKey={turnstile.siteKey} onToken={turnstile.onToken} />}
            <Group justify="flex-end" mt="xs">
              <Button variant="default" onClick={close}>
                取消
              </Button>
              <Button type="submit" loading={binding}>
                绑定
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
