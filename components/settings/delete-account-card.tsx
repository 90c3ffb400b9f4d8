"use client";
// Delete one's own account (spec §5 Users): the dialog asks for the username typed exactly, then
// DELETE /api/user/self (the server refuses for root) and the browser is logged out.
import { Alert, Button, Group, Modal, Stack, Text, TextInput } from "@mantine/core";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { SettingCard } from "@/components/settings/setting-card";
import { api } from "@/lib/client/api";
import { showSuccess } from "@/lib/client/notify";
import { clearUser } from "@/lib/client/storage";
import { deletionConfirmed, SETTINGS_MSG } from "@/lib/users/self-form";

export function DeleteAccountCard({ username }: { username: string }) {
  const [opened, setOpened] = useState(false);
  return (
    <SettingCard title="删除账户" danger description="删除后无法再登录，账户下的令牌全部停止使用，此操作不可恢复。">
      <Group>
        <Button color="red" variant="light" onClick={() => setOpened(true)}>
          删除账户
        </Button>
      </Group>
      <Modal opened={opened} onClose={() => setOpened(false)} title="确认删除账户" centered>
        <DeleteForm username={username} onCancel={() => setOpened(false)} />
      </Modal>
    </SettingCard>
  );
}

function DeleteForm({ username, onCancel }: { username: string; onCancel: () => void }) {
  const router = useRouter();
  const [typed, setTyped] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (!deletionConfirmed(typed, username)) {
      setError(SETTINGS_MSG.deleteMismatch);
      return;
    }
    setSubmitting(true);
    const res = await api("DELETE", "/api/user/self");
    if (!res.success) {
      setSubmitting(false);
      return;
    }
    showSuccess(SETTINGS_MSG.deleted);
    await api("POST", "/api/user/logout", undefined, { quiet: true, redirectOn401: false });
    clearUser();
    router.push("/login");
  };

  return (
    <form noValidate onSubmit={submit}>
      <Stack gap="sm">
        <Alert color="red" variant="light">
          你正在删除自己的账户，删除后将无法恢复。
        </Alert>
        <TextInput
          label={
            <>
              请输入你的账户名{" "}
              <Text span fw={700}>
                {username}
              </Text>{" "}
              以确认删除
            </>
          }
          autoComplete="off"
          value={typed}
          onChange={(e) => {
            setTyped(e.currentTarget.value);
            setError(null);
          }}
          error={error}
          data-autofocus
        />
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={onCancel}>
            取消
          </Button>
          <Button type="submit" color="red" loading={submitting}>
            确认删除
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
