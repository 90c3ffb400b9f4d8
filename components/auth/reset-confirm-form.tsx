"use client";
// The password-reset confirm page (/user/reset?email&token, the link of the reset mail): confirming
// sets a new random password, shows it and copies it to the clipboard. The link works once.
import { Alert, Anchor, Button, Group, Stack, Text, TextInput } from "@mantine/core";
import Link from "next/link";
import { useState } from "react";
import { AuthCard } from "@/components/auth/auth-card";
import { CopyButton, copyText } from "@/components/data/copy";
import { api } from "@/lib/client/api";

export const RESET_LINK_INVALID = "无效的重置链接，请重新发起密码重置请求";

export function ResetConfirmForm({ email, token }: { email: string; token: string }) {
  const [submitting, setSubmitting] = useState(false);
  const [password, setPassword] = useState("");
  const valid = email !== "" && token !== "";

  const submit = async () => {
    setSubmitting(true);
    const res = await api<string>("POST", "/api/user/reset", { email, token }, { redirectOn401: false });
    setSubmitting(false);
    if (!res.success) return;
    setPassword(res.data);
    await copyText(res.data, `新密码已复制到剪贴板：${res.data}`);
  };

  return (
    <AuthCard title="密码重置确认">
      {!valid ? (
        <Alert color="red">{RESET_LINK_INVALID}</Alert>
      ) : (
        <Stack gap="sm">
          <TextInput label="邮箱" value={email} readOnly />
          {password && (
            <Group gap="xs" align="flex-end" wrap="nowrap">
              <TextInput label="新密码" value={password} readOnly style={{ flex: 1 }} data-testid="new-password" />
              <CopyButton value={password} />
            </Group>
          )}
          <Button fullWidth size="md" mt="xs" loading={submitting} disabled={!!password} onClick={submit}>
            {password ? "密码重置完成" : "提交"}
          </Button>
        </Stack>
      )}
      <Text size="sm" mt="md">
        {password ? "请使用新密码" : "已有账户？"}{" "}
        <Anchor component={Link} href="/login">
          点击登录
        </Anchor>
      </Text>
    </AuthCard>
  );
}
