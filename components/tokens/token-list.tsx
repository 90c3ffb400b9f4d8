"use client";
// The token page's interactive part: search, add, copy selected, the table and its row actions.
// Rows come from the server component; every change goes through /api and then re-renders it.
import { ActionIcon, Alert, Button, Code, Group, Menu, Stack, Text, TextInput, Title, Tooltip } from "@mantine/core";
import { modals } from "@mantine/modals";
import { useState } from "react";
import { confirmAction } from "@/components/data/confirm";
import { CopyButton, copyText } from "@/components/data/copy";
import { QuotaText, TimeText } from "@/components/data/display";
import { type Column, PagedTable } from "@/components/data/paged-table";
import { useListUrl } from "@/components/data/use-list-url";
import { Icon } from "@/components/icons";
import { TokenDrawer } from "@/components/tokens/token-drawer";
import { TokenStatus } from "@/components/tokens/token-status";
import { api } from "@/lib/client/api";
import { showError, showSuccess } from "@/lib/client/notify";
import type { ChatLink } from "@/lib/ui/site-status";
import { TOKEN_FORM_MSG } from "@/lib/tokens/form";
import { TOKEN_STATUS } from "@/lib/tokens/status";
import type { TokenView } from "@/lib/tokens/view";
import { CHAT_MSG, chat2LinkTarget, chatLinkTarget, type LegacyChatLink } from "@/lib/ui/chat-link";

export type TokenPageData = { items: TokenView[]; page: number; page_size: number; total: number };

type Props = {
  page: TokenPageData;
  filters: { keyword: string; token: string };
  chats: { links: ChatLink[]; error: boolean };
  /** ChatLink and ChatLink2 when set: offered beside the Chats list, with the key in their fragment. */
  legacyChats: LegacyChatLink[];
  serverAddress: string;
  groups: Record<string, string>;
  groupsOffered: boolean;
  models: string[];
};

export const TOKEN_LIST_MSG = {
  banner: "令牌无法精确控制使用额度，只允许自用，请勿直接将令牌分发给他人。",
  deleteTitle: "确定是否要删除此令牌？",
  deleteBody: "此修改将不可逆",
  deleted: "删除成功！",
  done: "操作成功完成！",
  chatBadConfig: CHAT_MSG.badConfig,
  chatParseFailed: CHAT_MSG.parseFailed,
  chatNone: CHAT_MSG.none,
} as const;

/** The whole key of one token (lists carry masked keys only). */
async function fullKey(id: number): Promise<string | null> {
  const res = await api<TokenView>("GET", `/api/token/${id}`);
  return res.success ? res.data.key : null;
}

export function TokenList({ page, filters, chats, legacyChats, serverAddress, groups, groupsOffered, models }: Props) {
  const list = useListUrl();
  const [selected, setSelected] = useState<number[]>([]);
  const [keyword, setKeyword] = useState(filters.keyword);
  const [token, setToken] = useState(filters.token);
  const [editing, setEditing] = useState<{ id?: number } | null>(null);
  const [busy, setBusy] = useState<number | null>(null);

  const search = (event: React.FormEvent) => {
    event.preventDefault();
    setSelected([]);
    list.update({ keyword, token });
  };

  const copySelected = async () => {
    const rows = page.items.filter((t) => selected.includes(t.id));
    if (rows.length === 0) {
      showError(TOKEN_FORM_MSG.noneSelected);
      return;
    }
    const lines: string[] = [];
    for (const row of rows) {
      const key = await fullKey(row.id);
      if (key === null) return;
      lines.push(`${row.name} ${key}`);
    }
    await copyText(lines.join("\n"));
  };

  const viewKey = async (row: TokenView) => {
    const key = await fullKey(row.id);
    if (key === null) return;
    modals.open({
      title: `令牌「${row.name}」`,
      centered: true,
      children: (
        <Stack gap="sm">
          <Code block style={{ wordBreak: "break-all", whiteSpace: "pre-wrap" }}>
            {key}
          </Code>
          <Group justify="flex-end">
            <Button variant="light" onClick={() => copyText(key)}>
              复制
            </Button>
          </Group>
        </Stack>
      ),
    });
  };

  const chatWith = async (row: TokenView, pick: ChatPick) => {
    const key = await fullKey(row.id);
    if (key === null) return;
    const target =
      pick.kind === "template"
        ? chatLinkTarget(row.name, pick.template, key, serverAddress)
        : chat2LinkTarget(pick.link, key, serverAddress);
    // (A key is at hand, so chat2LinkTarget never answers "no-token" here.)
    if (target.kind !== "frame" && target.kind !== "app") {
      showError(TOKEN_LIST_MSG.chatBadConfig);
      return;
    }
    window.open(target.url, "_blank", "noopener,noreferrer");
  };

  const setStatus = async (row: TokenView) => {
    setBusy(row.id);
    const status = row.status === TOKEN_STATUS.enabled ? TOKEN_STATUS.disabled : TOKEN_STATUS.enabled;
    const res = await api("PUT", "/api/token/?status_only=true", { id: row.id, status });
    setBusy(null);
    if (!res.success) return;
    showSuccess(TOKEN_LIST_MSG.done);
    list.refresh();
  };

  const remove = async (row: TokenView) => {
    if (
      !(await confirmAction({ title: TOKEN_LIST_MSG.deleteTitle, message: TOKEN_LIST_MSG.deleteBody, confirmLabel: "删除", danger: true }))
    )
      return;
    setBusy(row.id);
    const res = await api("DELETE", `/api/token/${row.id}/`);
    setBusy(null);
    if (!res.success) return;
    showSuccess(TOKEN_LIST_MSG.deleted);
    setSelected((ids) => ids.filter((id) => id !== row.id));
    list.refresh();
  };

  const columns: Column<TokenView>[] = [
    {
      key: "name",
      title: "名称",
      render: (t) => (
        <Text size="sm" fw={500}>
          {t.name}
        </Text>
      ),
    },
    { key: "status", title: "状态", render: (t) => <TokenStatus status={t.status} limited={t.model_limits_enabled} /> },
    { key: "used", title: "已用额度", render: (t) => <QuotaText quota={t.used_quota} /> },
    {
      key: "remain",
      title: "剩余额度",
      render: (t) =>
        t.unlimited_quota ? (
          <Text size="sm" c="dimmed">
            无限制
          </Text>
        ) : (
          <QuotaText quota={t.remain_quota} />
        ),
    },
    { key: "created", title: "创建时间", render: (t) => <TimeText seconds={t.created_time} /> },
    { key: "expires", title: "过期时间", render: (t) => (t.expired_time === -1 ? "永不过期" : <TimeText seconds={t.expired_time} />) },
    {
      key: "actions",
      title: "操作",
      render: (t) => (
        <Group gap={4} wrap="nowrap">
          <Tooltip label="查看" withArrow>
            <ActionIcon variant="subtle" color="gray" aria-label="查看" onClick={() => viewKey(t)}>
              <Icon name="eye" size={16} />
            </ActionIcon>
          </Tooltip>
          <CopyButton value={() => fullKey(t.id)} label="复制" />
          <ChatMenu chats={chats} legacy={legacyChats} onPick={(pick) => chatWith(t, pick)} />
          <Button
            size="compact-sm"
            variant="light"
            color={t.status === TOKEN_STATUS.enabled ? "orange" : "green"}
            loading={busy === t.id}
            onClick={() => setStatus(t)}
          >
            {t.status === TOKEN_STATUS.enabled ? "禁用" : "启用"}
          </Button>
          <Tooltip label="编辑" withArrow>
            <ActionIcon variant="subtle" aria-label="编辑" onClick={() => setEditing({ id: t.id })}>
              <Icon name="edit" size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label="删除" withArrow>
            <ActionIcon variant="subtle" color="red" aria-label="删除" onClick={() => remove(t)}>
              <Icon name="trash" size={16} />
            </ActionIcon>
          </Tooltip>
        </Group>
      ),
    },
  ];

  return (
    <Stack gap="md">
      <Title order={3}>令牌管理</Title>
      <Alert color="yellow" variant="light">
        {TOKEN_LIST_MSG.banner}
      </Alert>
      <form onSubmit={search}>
        <Group gap="xs" align="flex-end" wrap="wrap">
          <TextInput
            aria-label="令牌名称"
            placeholder="搜索令牌的名称 ..."
            value={keyword}
            onChange={(e) => setKeyword(e.currentTarget.value)}
            leftSection={<Icon name="search" size={16} />}
            style={{ flex: "1 1 180px" }}
          />
          <TextInput
            aria-label="令牌 key"
            placeholder="令牌（sk- 开头）"
            value={token}
            onChange={(e) => setToken(e.currentTarget.value)}
            style={{ flex: "1 1 180px" }}
          />
          <Button type="submit" variant="light" loading={list.pending}>
            查询
          </Button>
        </Group>
      </form>
      <Group gap="xs">
        <Button leftSection={<Icon name="plus" size={16} />} onClick={() => setEditing({})}>
          添加令牌
        </Button>
        <Button variant="default" onClick={copySelected}>
          复制所选令牌
        </Button>
      </Group>
      <PagedTable
        label="令牌列表"
        rows={page.items}
        columns={columns}
        total={page.total}
        page={page.page}
        pageSize={page.page_size}
        list={list}
        selection={{ selected, onChange: setSelected }}
        minWidth={900}
        empty="还没有令牌，点击「添加令牌」创建一个"
      />
      <TokenDrawer
        editing={editing}
        onClose={() => setEditing(null)}
        onSaved={() => {
          setEditing(null);
          list.refresh();
        }}
        groups={groups}
        groupsOffered={groupsOffered}
        models={models}
      />
    </Stack>
  );
}

/** A chat menu choice: a Chats entry's template, or ChatLink/ChatLink2 (the /chat2link form). */
type ChatPick = { kind: "template"; template: string } | { kind: "legacy"; link: string };

/** The chat button: a dropdown of the configured chat links (spec §8 for the error cases). */
function ChatMenu({
  chats,
  legacy,
  onPick,
}: {
  chats: { links: ChatLink[]; error: boolean };
  legacy: LegacyChatLink[];
  onPick: (pick: ChatPick) => void;
}) {
  if (chats.error && chats.links.length === 0 && legacy.length === 0) {
    return (
      <Button size="compact-sm" variant="light" onClick={() => showError(TOKEN_LIST_MSG.chatParseFailed)}>
        聊天
      </Button>
    );
  }
  if (chats.links.length === 0 && legacy.length === 0) {
    return (
      <Button size="compact-sm" variant="light" onClick={() => showError(TOKEN_LIST_MSG.chatNone)}>
        聊天
      </Button>
    );
  }
  const entries = chats.links.map((link) => Object.entries(link)[0] ?? ["", ""]);
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button size="compact-sm" variant="light" rightSection={<Icon name="chevronDown" size={12} />}>
          聊天
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {entries.map(([name, template], i) => (
          <Menu.Item key={`${name}\n${template}`} onClick={() => onPick({ kind: "template", template })}>
            {name || `聊天 ${i + 1}`}
          </Menu.Item>
        ))}
        {legacy.map(({ label, link }) => (
          <Menu.Item key={`legacy\n${label}`} onClick={() => onPick({ kind: "legacy", link })}>
            {label}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
