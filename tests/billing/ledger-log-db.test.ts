// The ledger with the logs in their own database (LOG_SQL_DSN): main SQLite, logs on PostgreSQL.
// A batch's money is written in the main database and its log rows in the log database, none in
// the main one; while the log database refuses them the money is still written (once) and the
// rows wait, then go with a later batch, each once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LEDGER_OPTIONS, QuotaLedger, type UsageRecord } from "@/lib/billing/ledger";
import { createTestDatabase, type TestDatabase } from "@/tests/helpers/databases";

const OPTIONS = { ...DEFAULT_LEDGER_OPTIONS, flushIntervalMs: 60_000 };

const record = (userId: number, requestId: string): UsageRecord => ({
  userId,
  tokenId: 0,
  channelId: 0,
  modelName: "m",
  promptTokens: 10,
  completionTokens: 5,
  log: {
    user_id: userId,
    created_at: Math.floor(Date.now() / 1000),
    type: 2,
    content: "",
    username: "payer",
    token_name: "",
    model_name: "m",
    quota: 0n,
    prompt_tokens: 10,
    completion_tokens: 5,
    use_time: 0,
    is_stream: false,
    channel_id: 0,
    token_id: 0,
    group: "default",
    request_id: requestId,
    other: "{}",
  },
});

describe("ledger with a separate log database", () => {
  let main: TestDatabase;
  let logs: TestDatabase;
  beforeAll(async () => {
    main = await createTestDatabase("sqlite");
    logs = await createTestDatabase("postgresql");
  });
  afterAll(async () => {
    await main?.drop();
    await logs?.drop();
  });

  it("writes the money in the main database and the log rows in the log database, keeping refused rows for a later batch", async () => {
    const user = await main.db.user.create({ data: { username: "payer", password: "x", quota: 10_000n } });
    const ledger = new QuotaLedger(main.direct, OPTIONS, logs.direct);
    const spend = async (requestId: string, quota: bigint) => {
      const r = await ledger.reserve({ userId: user.id, tokenId: 0 }, quota, quota);
      await ledger.settle(r, quota, record(user.id, requestId));
      await ledger.flush();
    };
    const usedQuota = async () => (await main.db.user.findUniqueOrThrow({ where: { id: user.id } })).used_quota;
    const requestIds = async () => (await logs.db.log.findMany({ orderBy: { id: "asc" } })).map((r) => [r.request_id, r.quota]);

    await spend("a", 100n);
    expect(await usedQuota()).toBe(100n);
    expect(await requestIds()).toEqual([["a", 100n]]);

    // The log database refuses (its table is away): the money is written anyway, the row waits.
    await logs.direct.execute("ALTER TABLE logs RENAME TO logs_away");
    await spend("b", 200n);
    expect(await usedQuota()).toBe(300n);
    await logs.direct.execute("ALTER TABLE logs_away RENAME TO logs");
    expect(await requestIds()).toEqual([["a", 100n]]);

    // The next batch takes it along; nothing is charged twice.
    await spend("c", 300n);
    expect(await usedQuota()).toBe(600n);
    expect(await requestIds()).toEqual([
      ["a", 100n],
      ["b", 200n],
      ["c", 300n],
    ]);
    await ledger.close();
    expect(await main.db.log.count()).toBe(0);
    expect((await main.db.user.findUniqueOrThrow({ where: { id: user.id } })).request_count).toBe(3);
  });
});
