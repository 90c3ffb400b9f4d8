"use client";
// What the redemption list does: copy the selected codes, view a code, and the row actions
// (enable/disable, delete). Codes are read whole from /api/redemption/{id} when needed.
import { useState } from "react";
import { copyText } from "@/components/data/copy";
import { readSecret, showSecret } from "@/components/data/secret";
import type { ListUrl } from "@/components/data/use-list-url";
import { useRowAction } from "@/components/data/use-row-action";
import { api } from "@/lib/client/api";
import { showError } from "@/lib/client/notify";
import type { Page } from "@/lib/db/paging";
import { REDEMPTION_FORM_MSG, selectedLines } from "@/lib/redemptions/form";
import { REDEMPTION_STATUS } from "@/lib/redemptions/schemas";
import type { RedemptionView } from "@/lib/redemptions/view";

export const REDEMPTION_LIST_MSG = {
  deleteTitle: "确定是否要删除此兑换码？",
  deleteBody: "此修改将不可逆",
  deleted: "删除成功！",
  done: "操作成功完成！",
} as const;

/** The whole code of one redemption (lists carry masked codes only). */
export const fullCode = (id: number) => readSecret(`/api/redemption/${id}`);

export function useRedemptionActions(page: Page<RedemptionView>, list: ListUrl) {
  const [selected, setSelected] = useState<number[]>([]);

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
    if (code !== null) showSecret(`兑换码「${row.name}」`, code);
  };

  const status = useRowAction(
    REDEMPTION_LIST_MSG.done,
    null,
    (row: RedemptionView) => {
      const next = row.status === REDEMPTION_STATUS.unused ? REDEMPTION_STATUS.disabled : REDEMPTION_STATUS.unused;
      return api("PUT", "/api/redemption/?status_only=true", { id: row.id, status: next });
    },
    list.refresh,
  );

  const remove = useRowAction(
    REDEMPTION_LIST_MSG.deleted,
    { title: REDEMPTION_LIST_MSG.deleteTitle, message: REDEMPTION_LIST_MSG.deleteBody, confirmLabel: "删除", danger: true },
    (row: RedemptionView) => api("DELETE", `/api/redemption/${row.id}/`),
    (row) => {
      setSelected((ids) => ids.filter((id) => id !== row.id));
      list.refresh();
    },
  );

  return { selected, setSelected, copySelected, view, status, remove };
}

export type RedemptionActions = ReturnType<typeof useRedemptionActions>;
