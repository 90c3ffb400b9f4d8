// A key's own limits (issue 26) through the token API: created, read, edited and cleared with the
// key's other fields, refused with clear texts, published to the relay's key cache, and the key's
// use now at /api/token/:id/limits for its owner only.
import { beforeAll, describe, expect, it } from "vitest";
import * as tokens from "@/app/api/token/route";
import * as one from "@/app/api/token/[id]/route";
import * as limits from "@/app/api/token/[id]/limits/route";
import { type CacheEvent, onInvalidation } from "@/lib/cache/bus";
import { getDb } from "@/lib/db";
import { call, createUser } from "@/tests/helpers/api";

type Caller = { id: number; cookie: string };
let alice: Caller;
let bob: Caller;

beforeAll(async () => {
  await getDb();
  alice = await createUser({ username: "tlalice" });
  bob = await createUser({ username: "tlbob" });
});

const create = (body: Record<string, unknown>, as: Caller = alice) => call(tokens.POST, "POST", "/api/token/", { as, body });
const put = (body: Record<string, unknown>, as: Caller = alice) => call(tokens.PUT, "PUT", "/api/token/", { as, body });
const get = (id: number, as: Caller = alice) => call(one.GET, "GET", `/api/token/${id}`, { as, params: { id: String(id) } });
const usage = (id: number, as: Caller = alice) => call(limits.GET, "GET", `/api/token/${id}/limits`, { as, params: { id: String(id) } });
const row = async (id: number) => (await getDb()).token.findUniqueOrThrow({ where: { id } });

const LIMITS = { rpm_limit: 10, tpm_limit: 100000, concurrency_limit: 3, budget_quota: 2500000, budget_period: "week" };
const NONE = { rpm_limit: 0, tpm_limit: 0, concurrency_limit: 0, budget_quota: 0, budget_period: "" };

describe("a key's limits through the token API", () => {
  it("creates a key with limits, returns them on every read, and a key without them has none", async () => {
    const made = await create({ name: "limited", ...LIMITS });
    expect(made.json.success).toBe(true);
    expect(made.json.data).toMatchObject(LIMITS);
    const id: number = made.json.data.id;
    expect(await row(id)).toMatchObject({ ...LIMITS, budget_quota: 2500000n });
    expect((await get(id)).json.data).toMatchObject(LIMITS);
    const list = await call(tokens.GET, "GET", "/api/token/?size=100", { as: alice });
    expect(list.json.data.items.find((t: { id: number }) => t.id === id)).toMatchObject(LIMITS);
    // budget_quota crosses the API as remain_quota does: a JSON number.
    expect(typeof list.json.data.items[0].budget_quota).toBe(typeof list.json.data.items[0].remain_quota);
    expect((await create({ name: "plain" })).json.data).toMatchObject(NONE);
  });

  it("gives every key of a batch the same limits", async () => {
    const made = await create({ name: "lot", count: 3, rpm_limit: 7, budget_quota: 1000, budget_period: "day" });
    expect(made.json.data).toHaveLength(3);
    for (const t of made.json.data) expect(await row(t.id)).toMatchObject({ rpm_limit: 7, budget_quota: 1000n, budget_period: "day" });
  });

  it("refuses bad limits with clear texts and creates nothing", async () => {
    const db = await getDb();
    const before = await db.token.count();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ rpm_limit: -1 }, "每分钟请求数必须是 0 到 2147483647 之间的整数"],
      [{ rpm_limit: 2.5 }, "每分钟请求数必须是 0 到 2147483647 之间的整数"],
      [{ tpm_limit: 2 ** 31 }, "每分钟 token 数必须是 0 到 2147483647 之间的整数"],
      [{ concurrency_limit: "many" }, "并发请求数必须是 0 到 2147483647 之间的整数"],
      [{ budget_quota: -5, budget_period: "day" }, "周期预算必须是非负整数"],
      [{ budget_quota: 100, budget_period: "year" }, "预算周期只能是 day（每天）、week（每周）、month（每月）或空（不重置）"],
      [{ budget_quota: 100 }, "设置了周期预算，请选择预算周期（每天、每周或每月）"],
      [{ budget_quota: 100, budget_period: "" }, "设置了周期预算，请选择预算周期（每天、每周或每月）"],
      [{ budget_period: "month" }, "选择了预算周期，请填写大于 0 的周期预算"],
      [{ budget_quota: 100, count: 2 }, "设置了周期预算，请选择预算周期（每天、每周或每月）"],
    ];
    for (const [body, message] of cases) {
      const res = await create({ name: "bad", ...body });
      expect(res.status, message).toBe(400);
      expect(res.json, message).toEqual({ success: false, message: expect.stringContaining(message) });
    }
    expect(await db.token.count()).toBe(before);
  });

  it("edits and clears limits, checking the budget against what the key ends with, and tells the relay's cache", async () => {
    const id: number = (await create({ name: "edit-limits" })).json.data.id;
    const events: CacheEvent[] = [];
    const off = onInvalidation((e) => events.push(e));
    try {
      const set = await put({ id, ...LIMITS });
      expect(set.json.data).toMatchObject(LIMITS);
      // One of the pair alone: judged with the stored other half.
      expect((await put({ id, budget_quota: 900 })).json.data).toMatchObject({ budget_quota: 900, budget_period: "week" });
      const orphan = await put({ id, budget_quota: 0 });
      expect(orphan.status).toBe(400);
      expect(orphan.json.message).toBe("选择了预算周期，请填写大于 0 的周期预算");
      expect((await put({ id, budget_period: "" })).json.message).toBe("设置了周期预算，请选择预算周期（每天、每周或每月）");
      expect(await row(id)).toMatchObject({ budget_quota: 900n, budget_period: "week" });
      // A rename leaves the limits as they are.
      expect((await put({ id, name: "renamed" })).json.data).toMatchObject({ ...LIMITS, budget_quota: 900 });
      const cleared = await put({ id, ...NONE });
      expect(cleared.json.data).toMatchObject(NONE);
      expect(await row(id)).toMatchObject({ ...NONE, budget_quota: 0n });
    } finally {
      off();
    }
    const { key_hash } = await row(id);
    expect(events.filter((e) => e.kind === "token" && e.id === id)).toEqual(Array(4).fill({ kind: "token", keyHash: key_hash, id }));
  });

  it("answers the owner's key's use against its limits, null for each limit it has not", async () => {
    const id: number = (await create({ name: "usage", rpm_limit: 10, budget_quota: 5000, budget_period: "month" })).json.data.id;
    const res = await usage(id);
    expect(res.json.success).toBe(true);
    expect(res.json.data).toMatchObject({
      rpm: { limit: 10, used: 0 },
      tpm: null,
      concurrency: null,
      budget: { limit: "5000", used: "0", period: "month" },
    });
    expect(res.json.data.budget.resetAt).toBeGreaterThan(Date.now() / 1000);
    const bare: number = (await create({ name: "no-limits" })).json.data.id;
    expect((await usage(bare)).json.data).toEqual({ rpm: null, tpm: null, concurrency: null, budget: null });
  });

  it("does not show another user's key, a deleted key or a bad id", async () => {
    const id: number = (await create({ name: "alice-limits", rpm_limit: 5 })).json.data.id;
    const byBob = await usage(id, bob);
    expect(byBob.status).toBe(404);
    expect(byBob.json).toEqual({ success: false, message: "令牌不存在" });
    expect((await call(limits.GET, "GET", `/api/token/${id}/limits`, { params: { id: String(id) } })).status).toBe(401);
    expect((await usage(Number.NaN)).status).toBe(404);
    await call(one.DELETE, "DELETE", `/api/token/${id}/`, { as: alice, params: { id: String(id) } });
    expect((await usage(id)).status).toBe(404);
  });
});
