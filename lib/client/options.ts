// Saving system options from the console (root's settings tabs): PUT /api/option/ one option at a
// time, the server checking each, in the order given (a toggle after the values it needs). Every
// settings card saves through here; api() shows a refusal's message.
import { useState } from "react";
import { api } from "@/lib/client/api";
import { showError, showInfo, showSuccess } from "@/lib/client/notify";
import { NOTHING_CHANGED } from "@/lib/options/messages";
import { formError, isOptionKey } from "@/lib/options/registry";

export const OPTION_MSG = {
  saved: "保存成功",
  unchanged: NOTHING_CHANGED,
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

/** The registry's check of each value (the server's parser), by key; null where a value may be sent. */
export function optionErrors<K extends string>(values: Readonly<Partial<Record<K, string>>>): Partial<Record<K, string | null>> {
  const out: Partial<Record<K, string | null>> = {};
  for (const key of Object.keys(values) as K[]) out[key] = isOptionKey(key) ? formError(key, values[key] ?? "") : null;
  return out;
}

type FormValues<K extends string> = Record<K, string>;

export type OptionsFormConfig<K extends string> = {
  /** The stored values the form starts from, in the order they are saved. */
  initial: FormValues<K>;
  /** Write-only fields (secrets): they start empty and are sent only when something is typed. */
  writeOnly?: ReadonlySet<string>;
  /** The value a field sends when it differs from its input (a forced switch sends "true"). */
  sent?: (key: K, values: FormValues<K>) => string;
  /** Says why the whole form may not be saved now; shown as an error, nothing is sent. */
  refuse?: () => string | null;
  /** Called when a changed value fails the registry's check (after the messages are set beside the fields). */
  onInvalid?: (errors: Partial<Record<K, string>>) => void;
  /** The success message. */
  success?: string;
  /** Runs after a save, also a partial one; may give the values as stored (trimmed, normalised) to show. */
  afterSave?: (saved: K[]) => Promise<Partial<Record<string, string>> | null>;
};

/**
 * One settings form: the values being edited, what is stored, the messages beside the fields, and
 * `save`, which sends the changed options in order (checked by the registry's parser first), says
 * so when nothing changed, and keeps what was saved before a refusal.
 */
export function useOptionsForm<K extends string>(config: OptionsFormConfig<K>) {
  const { initial, writeOnly } = config;
  const blank = (key: string) => writeOnly?.has(key) ?? false;
  const [saved, setSaved] = useState<FormValues<K>>(initial);
  const [values, setValues] = useState<FormValues<K>>(
    () => Object.fromEntries(Object.entries(initial).map(([k, v]) => [k, blank(k) ? "" : v])) as FormValues<K>,
  );
  const [errors, setErrors] = useState<Partial<Record<K, string | null>>>({});
  const [saving, setSaving] = useState(false);

  const set = (key: K, value: string) => {
    setValues((v) => ({ ...v, [key]: value }));
    setErrors((e) => ({ ...e, [key]: null }));
  };

  /**
   * Sends what changed. `patch` sets fields first (values a form fills in itself, e.g. endpoints
   * read from a discovery document), as if typed.
   */
  const saveWith = async (patch: Partial<FormValues<K>>) => {
    const refusal = config.refuse?.();
    if (refusal) return showError(refusal);
    const current = { ...values, ...patch } as FormValues<K>;
    if (Object.keys(patch).length > 0) setValues(current);
    const sentValue = (key: K) => (config.sent ? config.sent(key, current) : current[key]);
    const changed: Partial<Record<K, string>> = {};
    for (const key of Object.keys(current) as K[]) {
      const value = sentValue(key);
      if (blank(key) ? value.trim() !== "" : value !== saved[key]) changed[key] = value;
    }
    if (Object.keys(changed).length === 0) return showInfo(OPTION_MSG.unchanged);
    const found = optionErrors(changed);
    setErrors(found);
    const invalid = Object.fromEntries(Object.entries(found).filter(([, m]) => m)) as Partial<Record<K, string>>;
    if (Object.keys(invalid).length > 0) return config.onInvalid?.(invalid);

    setSaving(true);
    const { ok, saved: done } = await saveOptions(changed as Record<string, string>);
    const stored = (await config.afterSave?.(done as K[])) ?? null;
    setSaving(false);
    // Saved fields show what the server stored when the caller read it back; a saved secret empties.
    const shown = (key: K) => (blank(key) ? "" : (stored?.[key] ?? changed[key]!));
    setSaved((s) => ({ ...s, ...Object.fromEntries(done.map((k) => [k, blank(k) ? "" : (stored?.[k] ?? changed[k as K]!)])) }));
    if (stored || done.some(blank)) setValues((v) => ({ ...v, ...Object.fromEntries((done as K[]).map((k) => [k, shown(k)])) }));
    if (ok) showSuccess(config.success ?? OPTION_MSG.saved);
  };

  const save = () => saveWith({});

  return { values, saved, errors, saving, set, setValues, setSaved, setErrors, save, saveWith };
}
