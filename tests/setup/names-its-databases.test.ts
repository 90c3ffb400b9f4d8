// A test file tagged as naming every database it uses (the tag below; scripts/database-tests.mjs)
// is left out of the PostgreSQL pass. tests/setup/env.ts gives it a main database that does not
// exist, so a file tagged wrongly fails, in every pass, instead of passing on SQLite alone.
// @main-database none (this file checks what the tag does).
import { expect, it } from "vitest";
import { getDirectDb } from "@/lib/db/direct";

it("has a main database that does not exist: using it fails, naming it", async () => {
  expect(process.env.SQL_DSN).toMatch(/\/qiao_file_names_every_database_it_uses$/);
  await expect(getDirectDb().then((db) => db.query("SELECT 1"))).rejects.toThrow(/qiao_file_names_every_database_it_uses/);
});
