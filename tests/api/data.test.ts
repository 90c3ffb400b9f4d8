// GET /api/data/ (admin) and /api/data/self/ (any user): the usage buckets in a time range, each
// caller only what their role allows; bad ranges are refused in the envelope.
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { call, createUser } from "@/tests/helpers/api";
import * as data from "@/app/api/data/route";
import * as selfData from "@/app/api/data/self/route";
import { DATA_MSG, MAX_DATA_SPAN } from "@/lib/data/query";

type Caller = { id: number; cookie: string };
let admin: Caller;
let dana: Caller;
let dave: Caller;
const T0 = 1_800_000_000 - (1_800_000_000 % 3600);
const range = (start = T0, end = T0 + 86400) => `start_timestamp=${start}&end_timestamp=${end}`;

type Item = { user_id: number; username: string; model_name: string; created_at: number; count: number; quota: number; token_used: number };

beforeAll(async () => {
  admin = await createUser({ username: "dadmin", role: 10 });
  dana = await createUser({ username: "dana" });
  dave = await createUser({ username: "dave" });
  const db = await getDb();
  const rows = [
    { user_id: dana.id, username: "dana", model_name: "gpt-4o", created_at: T0, count: 3, quota: 300n, token_used: 90n },
    { user_id: dana.id, username: "dana", model_name: "gpt-4o-mini", created_at: T0 + 300, count: 2, quota: 20n, token_used: 40n },
    { user_id: dave.id, username: "dave", model_name: "gpt-4o", created_at: T0 + 600, count: 5, quota: 500n, token_used: 150n },
    // Outside every range asked below.
    { user_id: dave.id, username: "dave", model_name: "gpt-4o", created_at: T0 - 600, count: 9, quota: 900n, token_used: 9n },
  ];
  for (const r of rows) await db.quotaData.create({ data: r });
});

async function items(handler: typeof data.GET, qs: string, as: Caller): Promise<Item[]> {
  const res = await call(handler, "GET", `/api/data/?${qs}`, { as });
  expect(res.json).toMatchObject({ success: true, message: "" });
  return res.json.data;
}

describe("GET /api/data/", () => {
  it("gives an admin everyone's buckets summed per model and bucket, oldest first, in new-api's row shape", async () => {
    const rows = await items(data.GET, range(), admin);
    expect(rows.map((r) => [r.username, r.model_name, r.created_at, r.count, r.quota, r.token_used])).toEqual([
      ["", "gpt-4o", T0, 3, 300, 90],
      ["", "gpt-4o-mini", T0 + 300, 2, 20, 40],
      ["", "gpt-4o", T0 + 600, 5, 500, 150],
    ]);
    expect(Object.keys(rows[0]!).sort()).toEqual(["count", "created_at", "id", "model_name", "quota", "token_used", "user_id", "username"]);
  });

  it("sums several users' use of one model in one bucket in the database (new-api's GetAllQuotaDates)", async () => {
    const T1 = T0 + 10 * 86400;
    const db = await getDb();
    for (const r of [
      { user_id: dana.id, username: "dana", model_name: "claude", created_at: T1, count: 2, quota: 2_000_000_000_000n, token_used: 7n },
      { user_id: dave.id, username: "dave", model_name: "claude", created_at: T1, count: 3, quota: 3n, token_used: 8n },
      { user_id: dave.id, username: "dave", model_name: "gpt-4o", created_at: T1, count: 1, quota: 1n, token_used: 1n },
    ]) {
      await db.quotaData.create({ data: r });
    }
    const rows = await items(data.GET, range(T1, T1 + 60), admin);
    expect(rows.map((r) => [r.model_name, r.created_at, r.count, r.quota, r.token_used, r.user_id])).toEqual([
      ["claude", T1, 5, 2_000_000_000_003, 15, 0],
      ["gpt-4o", T1, 1, 1, 1, 0],
    ]);
    // One username: that user's own rows, not sums.
    expect((await items(data.GET, `${range(T1, T1 + 60)}&username=dave`, admin)).map((r) => [r.model_name, r.count])).toEqual([
      ["claude", 3],
      ["gpt-4o", 1],
    ]);
    // The dashboard's "by user" view: sums per user and bucket.
    const { listQuotaData } = await import("@/lib/data/query");
    const byUser = await listQuotaData({ start_timestamp: T1, end_timestamp: T1 + 60, username: "" }, "user");
    expect(byUser.map((r) => [r.username, r.user_id, r.model_name, r.count, r.quota])).toEqual([
      ["dana", dana.id, "", 2, 2_000_000_000_000],
      ["dave", dave.id, "", 4, 4],
    ]);
  });

  it("filters by username, and both ends of the range are included", async () => {
    expect((await items(data.GET, `${range()}&username=dave`, admin)).map((r) => r.count)).toEqual([5]);
    expect((await items(data.GET, range(T0 + 300, T0 + 600), admin)).map((r) => r.created_at)).toEqual([T0 + 300, T0 + 600]);
    expect(await items(data.GET, `${range()}&username=nobody`, admin)).toEqual([]);
  });

  it("is refused to an ordinary user and to a visitor", async () => {
    const asUser = await call(data.GET, "GET", `/api/data/?${range()}`, { as: dana });
    expect(asUser.status).toBe(403);
    expect(asUser.json.success).toBe(false);
    const anonymous = await call(data.GET, "GET", `/api/data/?${range()}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.success).toBe(false);
  });
});

describe("GET /api/data/self/", () => {
  it("gives a user only their own buckets, whatever username they pass", async () => {
    expect((await items(selfData.GET, range(), dana)).map((r) => [r.model_name, r.count])).toEqual([
      ["gpt-4o", 3],
      ["gpt-4o-mini", 2],
    ]);
    const asked = await items(selfData.GET, `${range()}&username=dave`, dana);
    expect(asked.every((r) => r.user_id === dana.id)).toBe(true);
    expect((await items(selfData.GET, range(), dave)).map((r) => r.quota)).toEqual([500]);
  });

  it("needs a session", async () => {
    const res = await call(selfData.GET, "GET", `/api/data/self/?${range()}`);
    expect(res.status).toBe(401);
    expect(res.json.success).toBe(false);
  });
});

describe("bad time ranges", () => {
  const cases: [string, string][] = [
    ["", DATA_MSG.timestamp],
    [`start_timestamp=${T0}`, DATA_MSG.timestamp],
    [`start_timestamp=abc&end_timestamp=${T0}`, DATA_MSG.timestamp],
    [`start_timestamp=-5&end_timestamp=${T0}`, DATA_MSG.timestamp],
    [`start_timestamp=1.5&end_timestamp=${T0}`, DATA_MSG.timestamp],
    [`start_timestamp=${T0}&end_timestamp=99999999999`, DATA_MSG.timestamp],
    [range(T0 + 10, T0), DATA_MSG.order],
    [range(T0, T0 + MAX_DATA_SPAN + 1), DATA_MSG.span],
  ];
  for (const [qs, message] of cases)
    it(`refuses "${qs}" with "${message}"`, async () => {
      for (const [handler, as] of [
        [data.GET, admin],
        [selfData.GET, dana],
      ] as const) {
        const res = await call(handler, "GET", `/api/data/?${qs}`, { as });
        expect(res.status).toBe(400);
        expect(res.json.success).toBe(false);
        expect(res.json.message).toContain(message);
      }
    });

  it("accepts a range exactly one month wide", async () => {
    expect(await items(selfData.GET, range(T0 - MAX_DATA_SPAN, T0), dana)).toHaveLength(1);
  });
});
