// Migration 0006 (users.username_key) on SQLite, PostgreSQL and MariaDB over rows written before
// it: printable-ASCII names keyed in SQL, other names keyed at start (fillUsernameKeys), and names
// that already clashed by case or form leave the younger row without a key instead of failing the
// start (issue 20.8).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spyOnLog } from "@/tests/helpers/log";
import { openDb, type Db, type DbKind } from "@/lib/db";
import { applyMigrations } from "@/lib/db/migrate";
import { migrations } from "@/lib/db/migrations.generated";
import { fillUsernameKeys } from "@/lib/users/username-keys";
import { createMysqlDatabase, createPgDatabase, sqliteFile, type Throwaway } from "./helpers";

const KINDS: DbKind[] = ["sqlite", "postgresql", "mysql"];
const KEY_MIGRATION = "0006_username_key";

async function throwaway(kind: DbKind): Promise<Throwaway> {
  if (kind === "postgresql") return createPgDatabase();
  if (kind === "mysql") return createMysqlDatabase();
  const file = sqliteFile();
  return { name: file, url: file, drop: async () => {} };
}

// Older names, as earlier versions let them in: a case clash, a fullwidth name that NFKC makes
// another's, a name only NFKC and folding key, and plain ones.
const LEGACY = ["root", "Alice", "ROOT", "alice_2", "Ｂｅｎ", "ben", "Ｚｏë"];

for (const kind of KINDS) {
  describe(`username keys on ${kind}`, () => {
    let target: Throwaway | undefined;
    let db: Db;

    beforeAll(async () => {
      target = await throwaway(kind);
      db = await openDb(kind, target.url);
    });
    afterAll(async () => {
      await db?.$disconnect();
      await target?.drop();
    });

    it("backfills existing rows, keeps a clash from breaking the start, and the index holds afterwards", async () => {
      const all = migrations[kind];
      const before = all.slice(
        0,
        all.findIndex((m) => m.id === KEY_MIGRATION),
      );
      await applyMigrations(db, kind, before);
      const q = (n: number) => (kind === "postgresql" ? `$${n}` : "?");
      // MariaDB's collation (utf8mb4_unicode_ci) already refused names equal but for case and
      // width, so there the clashes never got in.
      const stored: string[] = [];
      for (const name of LEGACY) {
        try {
          await db.$executeRawUnsafe(`INSERT INTO users (username, password) VALUES (${q(1)}, ${q(2)})`, name, "x");
          stored.push(name);
        } catch (error) {
          if (kind !== "mysql") throw error;
        }
      }
      if (kind === "mysql") expect(stored).not.toContain("ROOT");
      else expect(stored).toEqual(LEGACY);
      expect(await applyMigrations(db, kind)).toContain(KEY_MIGRATION);
      const logged = spyOnLog();
      const left = await fillUsernameKeys(db);
      logged.mockRestore();

      const rows = await db.user.findMany({ select: { id: true, username: true, username_key: true }, orderBy: { id: "asc" } });
      const keyOf = Object.fromEntries(rows.map((r) => [r.username, r.username_key]));
      const expected: Record<string, string | null> = {
        root: "root",
        Alice: "alice",
        ROOT: null, // root had the key first
        alice_2: "alice_2",
        // NFKC makes it "Ben", whose key "ben" the ASCII row got in SQL (where that row got in)
        Ｂｅｎ: stored.includes("ben") ? null : "ben",
        ben: "ben",
        Ｚｏë: "zoë",
      };
      expect(keyOf).toEqual(Object.fromEntries(stored.map((n) => [n, expected[n]])));
      const idOf = (name: string) => rows.find((r) => r.username === name)!.id;
      expect(left).toEqual(stored.filter((n) => expected[n] === null).map(idOf));
      expect(await fillUsernameKeys(db)).toEqual(left); // a second start: same rows, no failure

      await expect(db.user.create({ data: { username: "Root2", username_key: "root", password: "x" } })).rejects.toMatchObject({
        code: "P2002",
      });
    });
  });
}
