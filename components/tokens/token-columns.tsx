"use client";
// The token table's columns (name, status, quotas, times) and its row buttons, chat menu included.
import { Button, Group, Menu, Text } from "@mantine/core";
import { CopyButton } from "@/components/data/copy";
import { QuotaText, TimeText } from "@/components/data/display";
import type { Column } from "@/components/data/paged-table";
import { RowIcon } from "@/components/data/row-icon";
import { Icon } from "@/components/icons";
import { TokenLimitsCell } from "@/components/tokens/token-limits";
import { TokenStatus } from "@/components/tokens/token-status";
import { type ChatPick, fullKey, TOKEN_LIST_MSG, type TokenActions } from "@/components/tokens/use-token-actions";
import { showError } from "@/lib/client/notify";
import { TOKEN_STATUS } from "@/lib/tokens/status";
import type { TokenView } from "@/lib/tokens/view";
import type { LegacyChatLink } from "@/lib/ui/chat-link";
import type { ChatLink } from "@/lib/ui/site-status";

export type Chats = { links: ChatLink[]; error: boolean };

type Ctx = { actions: TokenActions; onEdit: (id: number) => void; chats: Chats; legacyChats: LegacyChatLink[] };

export function tokenColumns({ actions, onEdit, chats, legacyChats }: Ctx): Column<TokenView>[] {
  const { status, remove } = actions;
  return [
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
    { key: "limits", title: "限制", render: (t) => <TokenLimitsCell token={t} /> },
    { key: "created", title: "创建时间", render: (t) => <TimeText seconds={t.created_time} /> },
    { key: "expires", title: "过期时间", render: (t) => (t.expired_time === -1 ? "永不过期" : <TimeText seconds={t.expired_time} />) },
    {
      key: "actions",
      title: "操作",
      render: (t) => (
        <Group gap={4} wrap="nowrap">
          <RowIcon label="查看" icon="eye" color="gray" onClick={() => actions.view(t)} />
          <CopyButton value={() => fullKey(t.id)} label="复制" />
          <ChatMenu chats={chats} legacy={legacyChats} onPick={(pick) => actions.chat(t, pick)} />
          {/* The spinner stays on this button while the row is being deleted too. */}
          <Button
            size="compact-sm"
            variant="light"
            color={t.status === TOKEN_STATUS.enabled ? "orange" : "green"}
            loading={status.busy(t) || remove.busy(t)}
            onClick={() => status.run(t)}
          >
            {t.status === TOKEN_STATUS.enabled ? "禁用" : "启用"}
          </Button>
          <RowIcon label="编辑" icon="edit" onClick={() => onEdit(t.id)} />
          <RowIcon label="删除" icon="trash" color="red" onClick={() => remove.run(t)} />
        </Group>
      ),
    },
  ];
}

/** The chat button: a dropdown of the configured chat links (spec §8 for the error cases). */
function ChatMenu({ chats, legacy, onPick }: { chats: Chats; legacy: LegacyChatLink[]; onPick: (pick: ChatPick) => void }) {
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
