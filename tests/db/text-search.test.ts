// textFilter (lib/db/text-search.ts) on SQLite, PostgreSQL and MariaDB: `%`, `_` and `\` typed in
// a search match themselves, in every mode (issue 20.11).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbKind } from "@/lib/db";
import { textFilter, type TextMode } from "@/lib/db/text-search";
import { createTestDatabase, type TestDatabase } from "@/tests/helpers/databases";

const NAMES = ["a_b", "axb", "a%b", "azzb", "a\\b", "a\\xb", "_lead", "xlead", "trail%", "trailx"];

const CASES: { mode: TextMode; text: string; want: string[] }[] = [
  { mode: "contains", text: "a_b", want: ["a_b"] },
  { mode: "contains", text: "a%b", want: ["a%b"] },
  { mode: "contains", text: "a\\b", want: ["a\\b"] },
  { mode: "contains", text: "_", want: ["a_b", "_lead"] },
  { mode: "contains", text: "%", want: ["a%b", "trail%"] },
  { mode: "contains", text: "zz", want: ["azzb"] },
  { mode: "startsWith", text: "_l", want: ["_lead"] },
  { mode: "endsWith", text: "l%", want: ["trail%"] },
];

for (const kind of ["sqlite", "postgresql", "mysql"] as DbKind[]) {
  describe(`literal text search on ${kind}`, () => {
    let t: TestDatabase;
    beforeAll(async () => {
      t = await createTestDatabase(kind);
      for (const username of NAMES) await t.db.user.create({ data: { username, password: "x" } });
    });
    afterAll(async () => {
      await t?.drop();
    });

    it("matches wildcards and backslashes as themselves", async () => {
      for (const c of CASES) {
        const where = await textFilter("users", "username", c.mode, c.text, { db: t.db, kind });
        const rows = await t.db.user.findMany({ where, select: { username: true } });
        expect(rows.map((r) => r.username).sort(), `${c.mode} ${c.text}`).toEqual([...c.want].sort());
      }
    });
  });
}
