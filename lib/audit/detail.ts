// The shape of an audit row's `detail`: a field that changed is `{ from, to }`, a fact of the action
// is a plain value (`{ name: "主渠道" }`). Long texts are cut so a row stays readable and small; a
// JSON object (a ratio table, a model mapping) is reduced to the entries that changed.

/** Characters of one text value kept in an audit row. */
export const AUDIT_TEXT_MAX = 1000;

export type Change = { from: unknown; to: unknown };

/** A text value cut to AUDIT_TEXT_MAX characters, saying how long it was; other values as they are. */
export function clip(value: unknown): unknown {
  if (typeof value !== "string" || value.length <= AUDIT_TEXT_MAX) return value;
  return `${value.slice(0, AUDIT_TEXT_MAX)}…（共 ${value.length} 个字符）`;
}

const same = (a: unknown, b: unknown) =>
  typeof a === "object" || typeof b === "object" ? JSON.stringify(a) === JSON.stringify(b) : a === b;

/** The `keys` whose value differs between `before` and `after`, each as `{ from, to }` (texts clipped). */
export function changedFields<K extends string>(
  before: Record<K, unknown>,
  after: Record<K, unknown>,
  keys: readonly K[],
): Record<string, Change> {
  const out: Record<string, Change> = {};
  for (const key of keys) {
    if (!same(before[key], after[key])) out[key] = { from: clip(before[key]), to: clip(after[key]) };
  }
  return out;
}

const asObject = (text: string): Record<string, unknown> | null => {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

/**
 * A stored text's change. Two JSON objects (ModelRatio, GroupRatio…) become the entries that were
 * added, changed or removed, old values under `from` and new under `to`, so a one-model edit of a
 * table of hundreds reads as that model; any other text is clipped.
 */
export function textChange(from: string, to: string): Change {
  const [a, b] = [asObject(from), asObject(to)];
  if (!a || !b) return { from: clip(from), to: clip(to) };
  const changed: Change = { from: {}, to: {} };
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (same(a[key], b[key])) continue;
    if (key in a) (changed.from as Record<string, unknown>)[key] = clip(a[key]);
    if (key in b) (changed.to as Record<string, unknown>)[key] = clip(b[key]);
  }
  return changed;
}
