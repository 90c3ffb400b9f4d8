// The operation tab (spec §2 Settings → operation): which options it edits (the registry's
// operation sections, lib/options/registry.ts, where each field's label and check live) and the
// log cleanup's time. Pure and client-safe.
import { type OptionKey, tabKeys } from "@/lib/options/registry";

export const OPERATION_MSG = {
  /** Spec §5: log cleanup needs a time chosen (the text of DELETE /api/log/'s own check). */
  cleanupTimeRequired: "请选择清理日志的截止时间",
  cleaned: (count: number) => `${count} 条日志已清理！`,
  cleaning: (deleted: number, total: number) => `正在清理：已删除 ${deleted} / ${total} 条`,
} as const;

/** Every key the tab edits: the page sends only these to the client. */
export const OPERATION_KEYS: readonly OptionKey[] = tabKeys("operation");

/** The options the tab edits, as stored strings, from the list GET /api/option/ answers. */
export function operationValues(list: ReadonlyArray<{ key: string; value: string }>): Partial<Record<OptionKey, string>> {
  const wanted = new Set<string>(OPERATION_KEYS);
  const out: Partial<Record<OptionKey, string>> = {};
  for (const { key, value } of list) if (wanted.has(key)) out[key as OptionKey] = value;
  return out;
}

/** The default of the log cleanup time (spec §9): one month before `now`, as a datetime-local value. */
export function defaultCleanupTime(now = new Date()): string {
  const d = new Date(now);
  d.setMonth(d.getMonth() - 1);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A datetime-local value as unix seconds, or null when empty or invalid. */
export function cleanupTimestamp(value: string): number | null {
  if (!value.trim()) return null;
  const ms = new Date(value).getTime();
  return Number.isFinite(ms) && ms > 0 ? Math.floor(ms / 1000) : null;
}
