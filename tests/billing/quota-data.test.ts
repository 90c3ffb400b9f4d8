// The data dashboard's writer: usage lands in buckets DataExportInterval minutes wide (the option
// as it is when each request settles), nothing when DataExportEnabled is off, and two instances
// adding to one bucket at once add up exactly (one atomic upsert per bucket and batch).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LEDGER_OPTIONS, QuotaLedger, type UsageRecord } from "@/lib/billing/ledger";
import { bucketStart, usageBucket } from "@/lib/data/buckets";
import type { Db, DbKind } from "@/lib/db";
import { openDirectDb } from "@/lib/db/direct";
import { createTestDatabase, type TestDatabase } from "@/tests/helpers/databases";

// 2027-01-14 08:00:00 UTC, on a day, hour and 5-minute boundary.
const T = 1_799_913_600 - (1_799_913_600 % 86400) + 8 * 3600;

describe("bucketStart", () => {
  it("floors to a multiple of the interval since the epoch, both ends of a bucket included", () => {
    expect(bucketStart(T, 5)).toBe(T);
    expect(bucketStart(T + 299, 5)).toBe(T);
    expect(bucketStart(T + 300, 5)).toBe(T + 300);
    expect(bucketStart(T - 1, 5)).toBe(T - 300);
    expect(bucketStart(T + 59, 1)).toBe(T);
    expect(bucketStart(T + 60, 1)).toBe(T + 60);
    expect(bucketStart(T + 3599, 60)).toBe(T);
    expect(bucketStart(T + 7 * 60 + 5, 7)).toBe(T + 7 * 60 + 5 - ((T + 7 * 60 + 5) % 420));
  });

  it("reads a width under one minute as one minute", () => {
    expect(bucketStart(T + 61, 0)).toBe(T + 60);
    expect(bucketStart(T + 61, Number.NaN)).toBe(T + 60);
  });
});

describe("usageBucket", () => {
  it("follows the options it is given: the interval of the moment, none when export is off", () => {
    const at = T + 17 * 60 + 30;
    expect(usageBucket({ DataExportEnabled: true, DataExportInterval: 5 }, "ann", at)).toEqual({ createdAt: T + 15 * 60, username: "ann" });
    expect(usageBucket({ DataExportEnabled: true, DataExportInterval: 60 }, "ann", at)).toEqual({ createdAt: T, username: "ann" });
    expect(usageBucket({ DataExportEnabled: false, DataExportInterval: 5 }, "ann", at)).toBeNull();
  });
});

const OPTIONS = { ...DEFAULT_LEDGER_OPTIONS, flushIntervalMs: 60_000 };

function usage(userId: number, model: string, at: number, interval: number, prompt = 10, completion = 5, enabled = true): UsageRecord {
  return {
    userId,
    tokenId: 0,
    channelId: 0,
    modelName: model,
    promptTokens: prompt,
    completionTokens: completion,
    log: null,
    bucket: usageBucket({ DataExportEnabled: enabled, DataExportInterval: interval }, `user${userId}`, at),
  };
}

async function seedUser(db: Db) {
  const user = await db.user.create({
    data: { username: `q${Math.random().toString(36).slice(2, 10)}`, password: "x", quota: 10_000_000n },
  });
  return user.id;
}

async function buckets(db: Db, userId: number) {
  const rows = await db.quotaData.findMany({ where: { user_id: userId }, orderBy: [{ created_at: "asc" }, { model_name: "asc" }] });
  return rows.map((r) => ({
    model: r.model_name,
    at: r.created_at,
    count: r.count,
    quota: Number(r.quota),
    tokens: Number(r.token_used),
    username: r.username,
  }));
}

for (const kind of ["sqlite", "postgresql", "mysql"] as DbKind[]) {
  describe(`quota_data writer on ${kind}`, () => {
    let t: TestDatabase;
    beforeAll(async () => {
      t = await createTestDatabase(kind);
    });
    afterAll(async () => {
      await t?.drop();
    });

    it("adds each settled request to its bucket: count, charged quota, prompt + completion tokens", async () => {
      const userId = await seedUser(t.db);
      const ledger = new QuotaLedger(t.direct, OPTIONS);
      const settle = async (charge: bigint, record: UsageRecord) => {
        const r = await ledger.reserve({ userId, tokenId: 0 }, 100n, 10_000_000n);
        await ledger.settle(r, charge, record);
      };
      await settle(100n, usage(userId, "gpt-4o", T + 10, 5, 10, 5));
      await settle(250n, usage(userId, "gpt-4o", T + 299, 5, 7, 3));
      await settle(40n, usage(userId, "gpt-4o", T + 300, 5, 1, 1));
      await settle(60n, usage(userId, "gpt-4o-mini", T + 20, 5, 2, 2));
      // The interval changed to an hour between two requests: the next one lands in an hour bucket.
      await settle(9n, usage(userId, "gpt-4o", T + 1800, 60, 4, 4));
      // Export switched off: charged, counted on the user, but in no bucket.
      await settle(1000n, usage(userId, "gpt-4o", T + 1900, 60, 50, 50, false));
      await ledger.close();
      expect(await buckets(t.db, userId)).toEqual([
        { model: "gpt-4o", at: T, count: 3, quota: 359, tokens: 33, username: `user${userId}` },
        { model: "gpt-4o-mini", at: T, count: 1, quota: 60, tokens: 4, username: `user${userId}` },
        { model: "gpt-4o", at: T + 300, count: 1, quota: 40, tokens: 2, username: `user${userId}` },
      ]);
      const user = await t.db.user.findUniqueOrThrow({ where: { id: userId } });
      expect(user.used_quota).toBe(1459n);
      expect(user.request_count).toBe(6);
    });

    it("two instances writing the same buckets at once never double count nor lose a request", async () => {
      const userId = await seedUser(t.db);
      const second = await openDirectDb(kind, t.dsn);
      const options = { ...OPTIONS, flushBatch: 4 };
      const ledgers = [new QuotaLedger(t.direct, options), new QuotaLedger(second, options)];
      const expected = new Map<string, { count: number; quota: number; tokens: number }>();
      const client = async (i: number) => {
        const ledger = ledgers[i % 2]!;
        for (let n = 0; n < 15; n++) {
          const model = n % 3 ? "gpt-4o" : "claude-3";
          const at = T + ((i + n) % 2) * 300;
          const charge = 10 + ((i * 7 + n * 13) % 90);
          const record = usage(userId, model, at, 5, n, i);
          const key = `${model}@${record.bucket!.createdAt}`;
          const e = expected.get(key) ?? { count: 0, quota: 0, tokens: 0 };
          e.count++;
          e.quota += charge;
          e.tokens += n + i;
          expected.set(key, e);
          const r = await ledger.reserve({ userId, tokenId: 0 }, 100n, 10_000_000n);
          await new Promise((r) => setImmediate(r));
          await ledger.settle(r, BigInt(charge), record);
        }
      };
      await Promise.all(Array.from({ length: 24 }, (_, i) => client(i)));
      await Promise.all(ledgers.map((l) => l.close()));
      await second.close();
      const rows = await buckets(t.db, userId);
      expect(rows).toHaveLength(expected.size);
      for (const r of rows) expect({ count: r.count, quota: r.quota, tokens: r.tokens }).toEqual(expected.get(`${r.model}@${r.at}`));
      expect(rows.reduce((s, r) => s + r.count, 0)).toBe(24 * 15);
      const user = await t.db.user.findUniqueOrThrow({ where: { id: userId } });
      expect(Number(user.used_quota)).toBe(rows.reduce((s, r) => s + r.quota, 0));
    });
  });
}
