"use client";
// The system access token (GET /api/user/token, inventory §6.2): a new one replaces the old, and
// only its hash is stored, so the dialog is the one place it is ever shown.
import { Alert, Button, Code, Group, Modal, Stack } from "@mantine/core";
import { useState } from "react";
import { copyText } from "@/components/data/copy";
import { SettingCard } from "@/components/settings/setting-card";
import { api } from "@/lib/client/api";

export const ACCESS_TOKEN_ONCE = "此令牌只显示这一次，关闭后无法再次查看，请立即复制并妥善保存。";

export function AccessTokenCard() {
  const [token, setToken] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  const generate = async () => {
    setLoading(true);
    const res = await api<string>("GET", "/api/user/token");
    setLoading(false);
    if (res.success) setToken(res.data);
  };

  return (
    <SettingCard title="系统访问令牌" description="用于在请求头 Authorization 中调用管理接口。生成新的令牌后，之前的令牌立即失效。">
      <Group>
        <Button variant="light" loading={loading} onClick={generate}>
          生成系统访问令牌
        </Button>
      </Group>
      <Modal opened={token !== null} onClose={() => setToken(null)} title="新的系统访问令牌" centered closeOnClickOutside={false}>
        <Stack gap="sm">
          <Alert color="yellow" variant="light">
            {ACCESS_TOKEN_ONCE}
          </Alert>
          <Code block aria-label="系统访问令牌" style={{ wordBreak: "break-all", whiteSpace: "pre-wrap" }}>
            {token}
          </Code>
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={() => setToken(null)}>
              关闭
            </Button>
            <Button onClick={() => token && copyText(token)}>复制</Button>
          </Group>
        </Stack>
      </Modal>
    </SettingCard>
  );
}
