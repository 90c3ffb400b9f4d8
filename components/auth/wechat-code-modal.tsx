"use client";
// The WeChat code step, for signing in (login page) and for binding (personal settings): the
// official account's QR code, what to send it, and the code it answers (valid 3 minutes, spec §4).
import { Button, Image, Modal, Stack, Text, TextInput } from "@mantine/core";
import { schemaResolver, useForm } from "@mantine/form";
import { useState } from "react";
import { z } from "zod";
import { wechatCodeSchema } from "@/lib/accounts/wechat-schemas";

const schema = z.object({ code: wechatCodeSchema });

export type WeChatCodeModalProps = {
  opened: boolean;
  onClose: () => void;
  title: string;
  /** The official account's QR code image (WeChatAccountQRCodeImageURL); may be unset. */
  qrcode: string;
  submitLabel: string;
  /** Sends the code; true when it was accepted (the modal then resets). */
  onSubmit: (code: string) => Promise<boolean>;
};

export function WeChatCodeModal({ opened, onClose, title, qrcode, submitLabel, onSubmit }: WeChatCodeModalProps) {
  const [submitting, setSubmitting] = useState(false);
  const form = useForm({ mode: "controlled", initialValues: { code: "" }, validate: schemaResolver(schema, { sync: true }) });

  const submit = async ({ code }: { code: string }) => {
    setSubmitting(true);
    const accepted = await onSubmit(code.trim());
    setSubmitting(false);
    if (accepted) form.reset();
  };

  return (
    <Modal opened={opened} onClose={onClose} title={title} centered size="sm">
      <form noValidate onSubmit={form.onSubmit(submit)}>
        <Stack gap="sm" align="stretch">
          {qrcode ? (
            <Image src={qrcode} alt="微信公众号二维码" w={200} h={200} fit="contain" mx="auto" radius="sm" />
          ) : (
            <Text size="sm" c="dimmed" ta="center">
              管理员尚未设置公众号二维码
            </Text>
          )}
          <Text size="sm" ta="center">
            用微信扫描二维码关注公众号，向公众号发送「验证码」，将收到的验证码填在下方（3 分钟内有效）。
          </Text>
          <TextInput
            label="验证码"
            placeholder="公众号回复的验证码"
            inputMode="numeric"
            autoComplete="one-time-code"
            data-autofocus
            key={form.key("code")}
            {...form.getInputProps("code")}
          />
          <Button type="submit" fullWidth loading={submitting}>
            {submitLabel}
          </Button>
        </Stack>
      </form>
    </Modal>
  );
}
