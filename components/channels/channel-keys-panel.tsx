"use client";
// 密钥管理 in the editor of a multi-key channel: each key masked, with its state (the reason and
// time of a disabled one in a tooltip), its used quota and requests; enable, disable or delete one,
// enable them all, delete the ones the relay disabled, and add keys in batch. Everything goes
// through POST /api/channel/multi_key/manage (lib/channels/multi-keys.ts); no key ever reaches
// the browser.
import { Alert, Badge, Button, Group, Loader, Modal, Pagination, Paper, Stack, Table, Text, Textarea, Title, Tooltip } from "@mantine/core";
import { useCallback, useEffect, useState } from "react";
import { confirmAction } from "@/components/data/confirm";
import { QuotaText, TimeText } from "@/components/data/display";
import { RowIcon } from "@/components/data/row-icon";
import { api } from "@/lib/client/api";
import { showSuccess } from "@/lib/client/notify";
import type { KeyStatusPage, KeyStatusView } from "@/lib/channels/multi-keys";

const PAGE_SIZE = 10;

const STATUS_BADGE: Record<number, { label: string; color: string }> = {
  1: { label: "已启用", color: "green" },
  2: { label: "已禁用", color: "gray" },
  3: { label: "自动禁用", color: "red" },
};

function KeyStatusBadge({ row }: { row: KeyStatusView }) {
  const badge = STATUS_BADGE[row.status] ?? { label: `状态 ${row.status}`, color: "gray" };
  const tag = (
    <Badge color={badge.color} variant="light">
      {badge.label}
    </Badge>
  );
  if (row.status === 1) return tag;
  return (
    <Tooltip
      multiline
      maw={320}
      withArrow
      label={
        <Stack gap={2}>
          {row.reason && <Text size="xs">{row.reason}</Text>}
          <Text size="xs">
            禁用时间：
            <TimeText seconds={row.disabled_time} empty="—" />
          </Text>
        </Stack>
      }
    >
      {tag}
    </Tooltip>
  );
}

export function ChannelKeysPanel({ channelId }: { channelId: number }) {
  const [data, setData] = useState<KeyStatusPage | null>(null);
  const [failed, setFailed] = useState(false);
  const [page, setPage] = useState(1);
  const [busy, setBusy] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [newKeys, setNewKeys] = useState("");

  const load = useCallback(async () => {
    const res = await api<KeyStatusPage>("POST", "/api/channel/multi_key/manage", {
      channel_id: channelId,
      action: "get_key_status",
      page,
      page_size: PAGE_SIZE,
    });
    setFailed(!res.success);
    if (res.success) setData(res.data);
  }, [channelId, page]);

  useEffect(() => {
    void load();
  }, [load]);

  const run = async (action: string, extra: Record<string, unknown> = {}, tag = action) => {
    setBusy(tag);
    try {
      const res = await api("POST", "/api/channel/multi_key/manage", { channel_id: channelId, action, ...extra });
      if (!res.success) return false;
      showSuccess(res.message || "操作成功");
      await load();
      return true;
    } finally {
      setBusy(null);
    }
  };

  const remove = async (row: KeyStatusView) => {
    const sure = await confirmAction({
      title: "删除密钥",
      message: `确定删除第 ${row.index + 1} 个密钥（${row.key_preview}）吗？`,
      danger: true,
    });
    if (sure) await run("delete_key", { key_index: row.index }, `delete-${row.index}`);
  };

  const removeAutoDisabled = async () => {
    const sure = await confirmAction({
      title: "删除自动禁用的密钥",
      message: "确定删除所有被自动禁用的密钥吗？手动禁用的密钥会保留。",
      danger: true,
    });
    if (sure) await run("delete_disabled_keys");
  };

  const add = async () => {
    if (await run("add_keys", { keys: newKeys })) {
      setAdding(false);
      setNewKeys("");
    }
  };

  return (
    <Paper withBorder p="sm" radius="md" data-testid="channel-keys">
      <Stack gap="sm">
        <Group justify="space-between" gap="xs" wrap="wrap">
          <Stack gap={0}>
            <Title order={5}>密钥管理</Title>
            {data && (
              <Text size="xs" c="dimmed">
                已启用 {data.enabled_count} / 共 {data.enabled_count + data.manual_disabled_count + data.auto_disabled_count} 个
                {data.auto_disabled_count > 0 ? `，自动禁用 ${data.auto_disabled_count} 个` : ""}
              </Text>
            )}
          </Stack>
          <Group gap="xs" wrap="wrap">
            <Button size="xs" variant="light" onClick={() => setAdding(true)}>
              批量添加
            </Button>
            <Button size="xs" variant="light" loading={busy === "enable_all_keys"} onClick={() => run("enable_all_keys")}>
              启用全部
            </Button>
            <Button size="xs" variant="light" color="red" loading={busy === "delete_disabled_keys"} onClick={removeAutoDisabled}>
              删除自动禁用
            </Button>
          </Group>
        </Group>
        {failed && !data ? (
          <Alert color="red" variant="light">
            密钥列表加载失败
            <Button size="compact-xs" variant="subtle" ml="xs" onClick={() => void load()}>
              重试
            </Button>
          </Alert>
        ) : !data ? (
          <Group justify="center" p="md">
            <Loader size="sm" />
          </Group>
        ) : data.keys.length === 0 ? (
          <Text size="sm" c="dimmed">
            暂无密钥
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={520} type="native">
            <Table verticalSpacing={4} aria-label="渠道密钥">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th w={48}>#</Table.Th>
                  <Table.Th>密钥</Table.Th>
                  <Table.Th>状态</Table.Th>
                  <Table.Th>已用额度</Table.Th>
                  <Table.Th>请求数</Table.Th>
                  <Table.Th w={90}>操作</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.keys.map((row) => (
                  <Table.Tr key={row.index}>
                    <Table.Td>{row.index + 1}</Table.Td>
                    <Table.Td>
                      <Text size="sm" ff="monospace">
                        {row.key_preview}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <KeyStatusBadge row={row} />
                    </Table.Td>
                    <Table.Td>
                      <QuotaText quota={row.used_quota} />
                    </Table.Td>
                    <Table.Td>{row.request_count}</Table.Td>
                    <Table.Td>
                      <Group gap={2} wrap="nowrap">
                        {row.status === 1 ? (
                          <Button
                            size="compact-xs"
                            variant="subtle"
                            color="orange"
                            loading={busy === `toggle-${row.index}`}
                            onClick={() => run("disable_key", { key_index: row.index }, `toggle-${row.index}`)}
                          >
                            禁用
                          </Button>
                        ) : (
                          <Button
                            size="compact-xs"
                            variant="subtle"
                            color="green"
                            loading={busy === `toggle-${row.index}`}
                            onClick={() => run("enable_key", { key_index: row.index }, `toggle-${row.index}`)}
                          >
                            启用
                          </Button>
                        )}
                        <RowIcon
                          label="删除"
                          icon="trash"
                          color="red"
                          loading={busy === `delete-${row.index}`}
                          onClick={() => remove(row)}
                        />
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        {data && data.total_pages > 1 && <Pagination size="sm" total={data.total_pages} value={data.page} onChange={setPage} />}
      </Stack>
      <Modal opened={adding} onClose={() => setAdding(false)} title="批量添加密钥" centered>
        <Stack gap="sm">
          <Textarea
            label="新密钥"
            description="一行一个；空行和已有的密钥会被跳过"
            autosize
            minRows={4}
            maxRows={12}
            value={newKeys}
            onChange={(e) => setNewKeys(e.currentTarget.value)}
            autoComplete="off"
            spellCheck={false}
          />
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={() => setAdding(false)}>
              取消
            </Button>
            <Button loading={busy === "add_keys"} disabled={!newKeys.trim()} onClick={add}>
              添加
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}
