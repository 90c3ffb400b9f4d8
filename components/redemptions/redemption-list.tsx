"use client";
// The redemption page's interactive part: search, add, copy selected, the table and its row
// actions. Rows come from the server component; every change goes through /api and then
// re-renders it.
import { ActionIcon, Button, Code, Group, Stack, Text, TextInput, Title, Tooltip } from "@mantine/core";
import { modals } from "@mantine/modals";
import { useState } from "react";
import { confirmAction } from "@/components/data/confirm";
import { CopyButton, copyText } from "@/components/data/copy";
import { QuotaText, TimeText } from "@/components/data/display";
import { type Column, PagedTable } from "@/components/data/paged-table";
import { useListUrl } from "@/components/data/use-list-url";
import { Icon } from "@/components/icons";
import { RedemptionDrawer } from "@/components/redemptions/redemption-drawer";
import { RedemptionStatus } from "@/components/redemptions/redemption-status";
import { api } from "@/lib/client/api";
import { showError, showSuccess } from "@/lib/client/notify";
import { REDEMPTION_FORM_MSG, selectedLines } from "@/lib/redemptions/form";
import { REDEMPTION_STATUS } from "@/lib/redemptions/schemas";
import type { RedemptionView } from "@/lib/redemptions/view";

export type RedemptionPageData = { items: RedemptionView[]; page: number; page_size: number; total: number };

export const REDEMPTION_LIST_MSG = {
  deleteTitle: "确定是否要删除此兑换码？",
  deleteBody: "此修改将不可逆",
  deleted: "删除成功！",
  done: "操作成功完成！",
} as const;

/** The whole code of one redemption (lists carry masked codes only). */
async function fullCode(id: number): Promise<string | null> {
  const res = await api<RedemptionView>("GET", `/api/redemption/${id}`);
  return res.success ? res.data.key : null;
}

export function RedemptionList({ page, keyword: initialKeyword }: { page: RedemptionPageData; keyword: string }) {
  const list = useListUrl();
  const [selected, setSelected] = useState<number[]>([]);
  const [keyword, setKeyword] = useState(initialKeyword);
  const [editing, setEditing] = useState<{ id?: number } | null>(null);
  const [busy, setBusy] = useState<number | null>(null);

  const search = (event: React.FormEvent) => {
    event.preventDefault();
    setSelected([]);
    list.update({ keyword });
  };

  const copySelected = async () => {
    const rows = page.items.filter((r) => selected.includes(r.id));
    if (rows.length === 0) {
      showError(REDEMPTION_FORM_MSG.noneSelected);
      return;
    }
    const codes = await Promise.all(rows.map((r) => fullCode(r.id)));
    if (codes.some((c) => c === null)) return;
    await copyText(selectedLines(rows.map((r, i) => ({ name: r.name, key: codes[i] as string }))));
  };

  const view = async (row: RedemptionView) => {
    const code = await fullCode(row.id);
    if (code === null) return;
    modals.open({
      title: `兑换码「${row.name}」`,
      centered: true,
      children: (
        <Stack gap="sm">
          <Code block style={{ wordBreak: "break-all", whiteSpace: "pre-wrap" }}>
            {code}
          </Code>
          <Group justify="flex-end">
            <Button variant="light" onClick={() => copyText(code)}>
              复制
            </Button>
          </Group>
        </Stack>
      ),
    });
  };

  const setStatus = async (row: RedemptionView) => {
    setBusy(row.id);
    const status = row.status === REDEMPTION_STATUS.unused ? REDEMPTION_STATUS.disabled : REDEMPTION_STATUS.unused;
    const res = await api("PUT", "/api/redemption/?status_only=true", { id: row.id, status });
    setBusy(null);
    if (!res.success) return;
    showSuccess(REDEMPTION_LIST_MSG.done);
    list.refresh();
  };

  const remove = async (row: RedemptionView) => {
    const confirmed = await confirmAction({
      title: REDEMPTION_LIST_MSG.deleteTitle,
      message: REDEMPTION_LIST_MSG.deleteBody,
      confirmLabel: "删除",
      danger: true,
    });
    if (!confirmed) return;
    setBusy(row.id);
    const res = await api("DELETE", `/api/redemption/${row.id}/`);
    setBusy(null);
    if (!res.success) return;
    showSuccess(REDEMPTION_LIST_MSG.deleted);
    setSelected((ids) => ids.filter((id) => id !== row.id));
    list.refresh();
  };

  const columns: Column<RedemptionView>[] = [
    { key: "id", title: "ID", render: (r) => r.id, width: 70 },
    {
      key: "name",
      title: "名称",
      render: (r) => (
        <Text size="sm" fw={500}>
          {r.name}
        </Text>
      ),
    },
    { key: "status", title: "状态", render: (r) => <RedemptionStatus status={r.status} /> },
    { key: "quota", title: "额度", render: (r) => <QuotaText quota={r.quota} /> },
    { key: "created", title: "创建时间", render: (r) => <TimeText seconds={r.created_time} /> },
    { key: "redeemed", title: "兑换时间", render: (r) => <TimeText seconds={r.redeemed_time} empty="尚未兑换" /> },
    { key: "user", title: "兑换人 ID", render: (r) => (r.used_user_id ? r.used_user_id : "无") },
    {
      key: "actions",
      title: "操作",
      render: (r) => {
        const used = r.status === REDEMPTION_STATUS.used;
        return (
          <Group gap={4} wrap="nowrap">
            <Tooltip label="查看" withArrow>
              <ActionIcon variant="subtle" color="gray" aria-label="查看" onClick={() => view(r)}>
                <Icon name="eye" size={16} />
              </ActionIcon>
            </Tooltip>
            <CopyButton value={() => fullCode(r.id)} label="复制" />
            {/* Spec §4: a used code is never enabled again. */}
            <Button
              size="compact-sm"
              variant="light"
              color={r.status === REDEMPTION_STATUS.unused ? "orange" : "green"}
              loading={busy === r.id}
              disabled={used}
              onClick={() => setStatus(r)}
            >
              {r.status === REDEMPTION_STATUS.unused ? "禁用" : "启用"}
            </Button>
            {/* Spec §4: edit only while unused. */}
            <Tooltip label={r.status === REDEMPTION_STATUS.unused ? "编辑" : "只能编辑未使用的兑换码"} withArrow>
              <ActionIcon
                variant="subtle"
                aria-label="编辑"
                disabled={r.status !== REDEMPTION_STATUS.unused}
                onClick={() => setEditing({ id: r.id })}
              >
                <Icon name="edit" size={16} />
              </ActionIcon>
            </Tooltip>
            <Tooltip label="删除" withArrow>
              <ActionIcon variant="subtle" color="red" aria-label="删除" onClick={() => remove(r)}>
                <Icon name="trash" size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        );
      },
    },
  ];

  return (
    <Stack gap="md">
      <Title order={3}>兑换码管理</Title>
      <form onSubmit={search}>
        <Group gap="xs" align="flex-end" wrap="wrap">
          <TextInput
            aria-label="兑换码 ID 或名称"
            placeholder="搜索兑换码的 ID 和名称 ..."
            value={keyword}
            onChange={(e) => setKeyword(e.currentTarget.value)}
            leftSection={<Icon name="search" size={16} />}
            style={{ flex: "1 1 220px" }}
          />
          <Button type="submit" variant="light" loading={list.pending}>
            查询
          </Button>
        </Group>
      </form>
      <Group gap="xs">
        <Button leftSection={<Icon name="plus" size={16} />} onClick={() => setEditing({})}>
          添加兑换码
        </Button>
        <Button variant="default" onClick={copySelected}>
          复制所选兑换码
        </Button>
      </Group>
      <PagedTable
        label="兑换码列表"
        rows={page.items}
        columns={columns}
        total={page.total}
        page={page.page}
        pageSize={page.page_size}
        list={list}
        selection={{ selected, onChange: setSelected }}
        minWidth={980}
        empty="还没有兑换码，点击「添加兑换码」创建一个"
      />
      <RedemptionDrawer
        editing={editing}
        onClose={() => setEditing(null)}
        onSaved={() => {
          setEditing(null);
          list.refresh();
        }}
      />
    </Stack>
  );
}
