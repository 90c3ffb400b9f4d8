"use client";
// One action of a list: ask (when it cannot be undone), call /api, say it worked, then refresh or
// whatever else the list does after. A failed call has already been reported by api().
import { useState } from "react";
import { type ConfirmOptions, confirmAction } from "@/components/data/confirm";
import type { ApiResult } from "@/lib/client/api";
import { showSuccess } from "@/lib/client/notify";

export type RowAction<R> = {
  run: (row: R) => Promise<void>;
  /** Whether the call for this row (the same id) is under way: its button shows a spinner. */
  busy: (row: R) => boolean;
};

/** A row's id, or the value itself for actions on the whole list (no row). */
const keyOf = (row: unknown) => (typeof row === "object" && row !== null && "id" in row ? row.id : row);

export function useRowAction<R, D = unknown>(
  label: string | ((row: R, data: D) => string),
  confirm: ConfirmOptions | ((row: R) => ConfirmOptions) | null,
  call: (row: R) => Promise<ApiResult<D>>,
  after: (row: R, data: D) => void,
): RowAction<R> {
  const [working, setWorking] = useState<{ row: R } | null>(null);
  const run = async (row: R) => {
    const ask = typeof confirm === "function" ? confirm(row) : confirm;
    if (ask && !(await confirmAction(ask))) return;
    setWorking({ row });
    const res = await call(row).finally(() => setWorking(null));
    if (!res.success) return;
    showSuccess(typeof label === "function" ? label(row, res.data) : label);
    after(row, res.data);
  };
  return { run, busy: (row) => working !== null && keyOf(working.row) === keyOf(row) };
}
