// Saving system options from the console (root's settings tabs): PUT /api/option/ one option at a
// time, the server checking each, in the order given (a toggle after the values it needs). Every
// settings card saves through here; api() shows a refusal's message.
import { api } from "@/lib/client/api";

export const OPTION_MSG = {
  saved: "保存成功",
  unchanged: "你似乎并没有修改什么",
} as const;

/** Saves `key = value`; false when the server refused it. */
export async function saveOption(key: string, value: string): Promise<boolean> {
  return (await api("PUT", "/api/option/", { key, value })).success;
}

/**
 * Saves each option in order and stops at the first refusal: what was saved before it stays
 * saved. Returns the keys that were saved, and whether all of them were.
 */
export async function saveOptions(changes: Readonly<Record<string, string>>): Promise<{ ok: boolean; saved: string[] }> {
  const saved: string[] = [];
  for (const [key, value] of Object.entries(changes)) {
    if (!(await saveOption(key, value))) return { ok: false, saved };
    saved.push(key);
  }
  return { ok: true, saved };
}

/** The options of `values` whose value differs from what was saved, in `values`' order. */
export function changedOptions<K extends string>(
  values: Readonly<Record<K, string>>,
  saved: Readonly<Record<K, string>>,
): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const key of Object.keys(values) as K[]) if (values[key] !== saved[key]) out[key] = values[key];
  return out;
}
