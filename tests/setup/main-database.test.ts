// The main database of a test file is the kind the run asks for (QIAO_TEST_DB, tests/setup/):
// each file starts on a fresh, migrated one, the same on SQLite and on PostgreSQL.
import { expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { dbKind } from "@/lib/db/kind";
import { getDirectDb } from "@/lib/db/direct";

it("is the kind QIAO_TEST_DB names (SQLite by default)", () => {
  expect(dbKind).toBe(process.env.QIAO_TEST_DB === "postgresql" ? "postgresql" : "sqlite");
});

it("starts migrated and empty but for the root account, and the direct connection sees the same rows", async () => {
  const db = await getDb();
  const users = await db.user.findMany({ select: { username: true, role: true } });
  expect(users).toEqual([{ username: "root", role: 100 }]);
  expect(await db.token.count()).toBe(0);
  const direct = await getDirectDb();
  expect(await direct.query("SELECT username FROM users")).toEqual([{ username: "root" }]);
});
