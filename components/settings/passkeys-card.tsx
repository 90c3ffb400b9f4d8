"use client";
// 通行密钥 in personal settings: the account's passkeys (GET /api/user/passkey), a new one under a
// name (the register ceremony, lib/client/passkey.ts) and removal after a confirm. The server
// refuses to remove the account's last way to sign in, and says so.
import { Alert, Badge, Button, Divider, Group, Loader, Stack, Text, TextInput } from "@mantine/core";
import { schemaResolver, useForm } from "@mantine/form";
import { Fragment, useCallback, useEffect, useState } from "react";
import { confirmAction } from "@/components/data/confirm";
import { TimeText } from "@/components/data/display";
import { SettingCard } from "@/components/settings/setting-card";
import { PASSKEY_NAME_MAX, passkeyBeginSchema } from "@/lib/accounts/passkey-schemas";
import type { PasskeyStatus, PasskeyView } from "@/lib/accounts/passkeys";
import { api } from "@/lib/client/api";
import { showSuccess } from "@/lib/client/notify";
import { passkeySupported, registerPasskey } from "@/lib/client/passkey";

type Listing = { state: "loading" } | { state: "error"; message: string } | { state: "ready"; passkeys: PasskeyView[] };

function PasskeyRow({ passkey, onRemove }: { passkey: PasskeyView; onRemove: (p: PasskeyView) => void }) {
  return (
    <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm">
      <Stack gap={2} style={{ minWidth: 0 }}>
        <Group gap="xs" wrap="wrap">
          <Text fw={500} style={{ overflowWrap: "anywhere" }}>
            {passkey.name}
          </Text>
          {passkey.backed_up && (
            <Badge variant="light" color="teal" size="sm">
              已同步
            </Badge>
          )}
        </Group>
        {/* Two pieces that wrap whole on a phone rather than mid-date. */}
        <Group gap="sm" wrap="wrap" style={{ rowGap: 0 }}>
          <Text size="xs" c="dimmed" style={{ whiteSpace: "nowrap" }}>
            添加于 <TimeText seconds={passkey.created_at} />
          </Text>
          <Text size="xs" c="dimmed" style={{ whiteSpace: "nowrap" }}>
            最近使用 <TimeText seconds={passkey.last_used_at} empty="从未使用" />
          </Text>
        </Group>
      </Stack>
      <Button variant="subtle" color="red" size="xs" onClick={() => onRemove(passkey)} aria-label={`删除通行密钥 ${passkey.name}`}>
        删除
      </Button>
    </Group>
  );
}

export function PasskeysCard() {
  const [listing, setListing] = useState<Listing>({ state: "loading" });
  const [supported, setSupported] = useState(true);
  const [adding, setAdding] = useState(false);
  const form = useForm({
    mode: "controlled",
    initialValues: { name: "" },
    validate: schemaResolver(passkeyBeginSchema, { sync: true }),
  });

  const load = useCallback(async () => {
    const res = await api<PasskeyStatus>("GET", "/api/user/passkey", undefined, { quiet: true });
    setListing(res.success ? { state: "ready", passkeys: res.data.passkeys } : { state: "error", message: res.message });
  }, []);

  useEffect(() => {
    setSupported(passkeySupported());
    void load();
  }, [load]);

  const add = async ({ name }: { name: string }) => {
    setAdding(true);
    const added = await registerPasskey(name.trim());
    setAdding(false);
    if (!added) return;
    form.reset();
    showSuccess("通行密钥已添加");
    await load();
  };

  const remove = async (passkey: PasskeyView) => {
    const confirmed = await confirmAction({
      title: "删除通行密钥",
      message: `确定删除通行密钥「${passkey.name}」吗？删除后将不能再用它登录。`,
      confirmLabel: "删除",
      danger: true,
    });
    if (!confirmed) return;
    const res = await api("DELETE", `/api/user/passkey/${passkey.id}`);
    if (!res.success) return;
    showSuccess("通行密钥已删除");
    await load();
  };

  return (
    <SettingCard
      title="通行密钥"
      description="使用指纹、面容或设备 PIN 登录，无需输入密码；用通行密钥登录时也不再需要两步验证码。"
      extra={
        listing.state === "ready" && listing.passkeys.length > 0 ? <Badge variant="light">{listing.passkeys.length} 个</Badge> : undefined
      }
    >
      {listing.state === "loading" && (
        <Group justify="center" py="sm">
          <Loader size="sm" aria-label="正在加载通行密钥" />
        </Group>
      )}
      {listing.state === "error" && (
        <Alert color="red" variant="light" title="加载失败">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">{listing.message}</Text>
            <Button size="xs" variant="light" onClick={() => void load()}>
              重试
            </Button>
          </Stack>
        </Alert>
      )}
      {listing.state === "ready" && listing.passkeys.length === 0 && (
        <Text size="sm" c="dimmed">
          尚未添加通行密钥
        </Text>
      )}
      {listing.state === "ready" && listing.passkeys.length > 0 && (
        <Stack gap="xs" aria-label="已添加的通行密钥">
          {listing.passkeys.map((p, i) => (
            <Fragment key={p.id}>
              {i > 0 && <Divider />}
              <PasskeyRow passkey={p} onRemove={remove} />
            </Fragment>
          ))}
        </Stack>
      )}
      {supported ? (
        <form noValidate onSubmit={form.onSubmit(add)}>
          <Group align="flex-end" gap="sm" wrap="nowrap">
            <TextInput
              label="名称"
              placeholder="例如：我的笔记本"
              maxLength={PASSKEY_NAME_MAX}
              style={{ flex: 1, minWidth: 0 }}
              key={form.key("name")}
              {...form.getInputProps("name")}
            />
            <Button type="submit" loading={adding}>
              添加通行密钥
            </Button>
          </Group>
        </form>
      ) : (
        <Alert color="gray" variant="light">
          当前浏览器不支持通行密钥
        </Alert>
      )}
    </SettingCard>
  );
}
