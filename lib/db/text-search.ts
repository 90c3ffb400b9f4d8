// Console searches match text literally (issue 20.11). Prisma turns `contains`, `startsWith` and
// `endsWith` into LIKE with the text pasted between `%`s unescaped, so a `_` or `%` typed in a
// search box matched any character or any run of them.
// - PostgreSQL and MySQL/MariaDB read a backslash as LIKE's escape character by default, so
//   escaping `\`, `%` and `_` in the text is enough there.
// - SQLite's LIKE has no escape character unless the query names one, which Prisma's does not: a
//   text with `%` or `_` is matched by a query of our own that says ESCAPE, and handed to Prisma
//   as the ids it found. Other texts (nearly all) keep Prisma's filter as it was.
import { getDb } from "@/lib/db";
import { dbKind } from "@/lib/db/kind";
import type { Db, DbKind } from "@/lib/db/types";

export type TextMode = "contains" | "startsWith" | "endsWith";

/** The tables and columns a console search reads; the names are pasted into SQL, so only these. */
const SEARCHABLE = {
  users: ["username", "display_name", "email"],
  tokens: ["name", "key_hint"],
  channels: ["name", "models", "group"],
  redemptions: ["name"],
} as const;

export type SearchTable = keyof typeof SEARCHABLE;
export type SearchColumn<T extends SearchTable> = (typeof SEARCHABLE)[T][number];

/** `text` with LIKE's wildcards and its escape character escaped by a backslash. */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

const pattern = (mode: TextMode, escaped: string) =>
  mode === "contains" ? `%${escaped}%` : mode === "startsWith" ? `${escaped}%` : `%${escaped}`;

/**
 * A where-fragment for `column` of `table` that holds when the column contains (starts with,
 * ends with) `text` as typed. Case follows the database as before: SQLite's LIKE and MySQL's
 * collation ignore ASCII case, PostgreSQL does not.
 */
export async function textFilter<T extends SearchTable>(
  table: T,
  column: SearchColumn<T>,
  mode: TextMode,
  text: string,
  on: { db?: Db; kind?: DbKind } = {},
): Promise<Record<string, unknown>> {
  const kind = on.kind ?? dbKind;
  if (kind !== "sqlite") return { [column]: { [mode]: escapeLike(text) } };
  if (!/[%_]/.test(text)) return { [column]: { [mode]: text } };
  const db = on.db ?? (await getDb());
  const rows = await db.$queryRawUnsafe<{ id: unknown }[]>(
    `SELECT id FROM "${table}" WHERE "${column}" LIKE ? ESCAPE '\\'`,
    pattern(mode, escapeLike(text)),
  );
  return { id: { in: rows.map((r) => Number(r.id)) } };
}
