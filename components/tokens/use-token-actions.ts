"use client";
// What the token list does: copy the selected keys, view a key, open a chat with it, and the
// row actions (enable/disable, delete). Keys are read whole from /api/token/{id} when needed.
import { useState } from "react";
import { copyText } from "@/components/data/copy";
import { readSecret, showSecret } from "@/components/data/secret";
import type { ListUrl } from "@/components/data/use-list-url";
import { useRowAction } from "@/components/data/use-row-action";
import { api } from "@/lib/client/api";
import { showError } from "@/lib/client/notify";
import type { Page } from "@/lib/db/paging";
import { TOKEN_FORM_MSG } from "@/lib/tokens/form";
import { TOKEN_STATUS } from "@/lib/tokens/status";
import type { TokenView } from "@/lib/tokens/view";
import { CHAT_MSG, chat2LinkTarget, chatLinkTarget } from "@/lib/ui/chat-link";

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

/** A chat menu choice: a Chats entry's template, or ChatLink/ChatLink2 (the /chat2link form). */
export type ChatPick = { kind: "template"; template: string } | { kind: "legacy"; link: string };

/** The whole key of one token (lists carry masked keys only). */
export const fullKey = (id: number) => readSecret(`/api/token/${id}`);

export function useTokenActions(page: Page<TokenView>, list: ListUrl, serverAddress: string) {
  const [selected, setSelected] = useState<number[]>([]);

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

  const view = async (row: TokenView) => {
    const key = await fullKey(row.id);
    if (key !== null) showSecret(`令牌「${row.name}」`, key);
  };

  const chat = async (row: TokenView, pick: ChatPick) => {
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

  const status = useRowAction(
    TOKEN_LIST_MSG.done,
    null,
    (row: TokenView) => {
      const next = row.status === TOKEN_STATUS.enabled ? TOKEN_STATUS.disabled : TOKEN_STATUS.enabled;
      return api("PUT", "/api/token/?status_only=true", { id: row.id, status: next });
    },
    list.refresh,
  );

  const remove = useRowAction(
    TOKEN_LIST_MSG.deleted,
    { title: TOKEN_LIST_MSG.deleteTitle, message: TOKEN_LIST_MSG.deleteBody, confirmLabel: "删除", danger: true },
    (row: TokenView) => api("DELETE", `/api/token/${row.id}/`),
    (row) => {
      setSelected((ids) => ids.filter((id) => id !== row.id));
      list.refresh();
    },
  );

  return { selected, setSelected, copySelected, view, chat, status, remove };
}

export type TokenActions = ReturnType<typeof useTokenActions>;
