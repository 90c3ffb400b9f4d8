"use client";
// Personal settings → 两步验证: whether the account asks for a TOTP code at sign-in, how many
// backup codes are left; set up (QR code, a code to enable, the backup codes shown once), switch
// off with a code, new backup codes with a code. Setting up asks for step-up first (the api client
// opens that dialog); each change ends the account's other sessions.
import { Alert, Badge, Button, Group, Modal, Skeleton, Stack, Text } from "@mantine/core";
import { useCallback, useEffect, useState } from "react";
import { SettingCard } from "@/components/settings/setting-card";
import { BackupCodes, CodeDialog, SetupDialog } from "@/components/settings/two-factor-dialogs";
import type { TwoFactorSetup, TwoFactorStatus } from "@/lib/accounts/two-factor";
import { api } from "@/lib/client/api";

type Dialog = "disable" | "regenerate" | null;

export function TwoFactorCard() {
  const [status, setStatus] = useState<TwoFactorStatus | null>(null);
  const [failed, setFailed] = useState(false);
  const [setup, setSetup] = useState<TwoFactorSetup | null>(null);
  const [starting, setStarting] = useState(false);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [newCodes, setNewCodes] = useState<string[] | null>(null);

  const load = useCallback(async () => {
    const res = await api<TwoFactorStatus>("GET", "/api/user/2fa/status", undefined, { quiet: true });
    if (res.success) setStatus(res.data);
    setFailed(!res.success);
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  const start = async () => {
    setStarting(true);
    const res = await api<TwoFactorSetup>("POST", "/api/user/2fa/setup");
    setStarting(false);
    if (res.success) setSetup(res.data);
  };

  const badge = status && (
    <Badge color={status.enabled ? "teal" : "gray"} variant="light">
      {status.enabled ? "已启用" : "未启用"}
    </Badge>
  );

  return (
    <SettingCard title="两步验证" extra={badge} description="启用后，登录时除密码或第三方账户外，还需输入身份验证器应用生成的 6 位验证码。">
      {status === null ? (
        failed ? (
          <Alert color="red" variant="light">
            无法读取两步验证状态，请刷新页面重试。
          </Alert>
        ) : (
          <Skeleton h={36} />
        )
      ) : status.enabled ? (
        <Stack gap="sm">
          <Text size="sm">剩余备用码：{status.backup_codes_remaining} 个</Text>
          {status.backup_codes_remaining <= 2 && (
            <Alert color="yellow" variant="light">
              备用码即将用完，请重新生成。
            </Alert>
          )}
          {status.locked && (
            <Alert color="red" variant="light">
              验证码错误次数过多，暂时无法验证，请稍后再试。
            </Alert>
          )}
          <Group gap="xs">
            <Button variant="light" onClick={() => setDialog("regenerate")}>
              重新生成备用码
            </Button>
            <Button variant="light" color="red" onClick={() => setDialog("disable")}>
              停用两步验证
            </Button>
          </Group>
        </Stack>
      ) : (
        <Group>
          <Button variant="light" loading={starting} onClick={start}>
            启用两步验证
          </Button>
        </Group>
      )}

      <SetupDialog setup={setup} onClose={() => setSetup(null)} onEnabled={load} />
      <CodeDialog<null>
        opened={dialog === "disable"}
        title="停用两步验证"
        confirmLabel="停用"
        danger
        action={(code) => api<null>("POST", "/api/user/2fa/disable", { code })}
        onClose={() => setDialog(null)}
        onDone={() => {
          setDialog(null);
          void load();
        }}
      />
      <CodeDialog<{ backup_codes: string[] }>
        opened={dialog === "regenerate"}
        title="重新生成备用码"
        confirmLabel="重新生成"
        action={(code) => api<{ backup_codes: string[] }>("POST", "/api/user/2fa/backup_codes", { code })}
        onClose={() => setDialog(null)}
        onDone={(data) => {
          setDialog(null);
          setNewCodes(data.backup_codes);
          void load();
        }}
      />
      <Modal opened={newCodes !== null} onClose={() => setNewCodes(null)} title="新的备用码" centered closeOnClickOutside={false}>
        {newCodes && (
          <Stack gap="sm">
            <BackupCodes codes={newCodes} />
            <Button onClick={() => setNewCodes(null)}>我已保存</Button>
          </Stack>
        )}
      </Modal>
    </SettingCard>
  );
}
