// One SQLite connection serves the whole process: an ordinary write issued while an interactive
// transaction is open must neither be swallowed by that transaction's rollback nor break it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/tests/helpers/databases";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase("sqlite");
});
afterAll(async () => {
  await t?.drop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("SQLite: statements outside a transaction stay outside it", () => {
  it("a write made while another transaction is open survives that transaction's rollback", async () => {
    const rolledBack = t.db
      .$transaction(async (tx) => {
        await tx.option.create({ data: { key: "tx-row", value: "1" } });
        await sleep(300);
        throw new Error("roll back");
      })
      .catch((e: Error) => e.message);
    await sleep(50);
    // Issued while the transaction is open; it resolves as success.
    await t.db.option.create({ data: { key: "outside-row", value: "1" } });
    expect(await rolledBack).toBe("roll back");
    const keys = (await t.db.option.findMany({ where: { key: { in: ["tx-row", "outside-row"] } }, select: { key: true } })).map(
      (r) => r.key,
    );
    expect(keys).toEqual(["outside-row"]);
  });

  it("reads beside a transaction see committed data only, and the transaction still commits", async () => {
    const committed = t.db.$transaction(async (tx) => {
      await tx.option.create({ data: { key: "tx-commit", value: "1" } });
      await sleep(200);
      await tx.option.update({ where: { key: "tx-commit" }, data: { value: "2" } });
    });
    await sleep(50);
    // A read issued meanwhile waits for the transaction instead of seeing its uncommitted row.
    const seen = await t.db.option.findUnique({ where: { key: "tx-commit" } });
    await committed;
    expect(seen?.value).toBe("2");
  });
});
