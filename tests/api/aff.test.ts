// Invitations: the invite code (GET /api/user/aff), the inviter's reward at registration, and the
// transfer of that reward to the balance (POST /api/user/aff_transfer), atomic on every database.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getDb, openDb, type Db, type DbKind } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { defaultRaw, type OptionKey } from "@/lib/options/registry";
import { onInvalidation, type CacheEvent } from "@/lib/cache/bus";
import { getAffCode, moveAffQuota, transferAffQuota } from "@/lib/users/aff";
import { AFF_MSG } from "@/lib/users/self-form";
import { AFF_TRANSFER_INVALID } from "@/lib/users/schemas";
import { call, createUser } from "@/tests/helpers/api";
import { createTestDatabase, type TestDatabase } from "@/tests/helpers/databases";
import * as aff from "@/app/api/user/aff/route";
import * as affTransfer from "@/app/api/user/aff_transfer/route";
import * as register from "@/app/api/user/register/route";
import * as self from "@/app/api/user/self/route";

type Caller = { id: number; cookie: string };

const changed = new Set<OptionKey>();
async function setOption(key: OptionKey, value: string) {
  changed.add(key);
  await updateOption(key, value);
}
afterEach(async () => {
  for (const key of changed) await updateOption(key, defaultRaw(key));
  changed.clear();
});

let ipCount = 0;
const ip = () => `198.51.100.${++ipCount}`;

beforeAll(async () => {
  await getDb();
});

async function userRow(id: number) {
  return (await getDb()).user.findUniqueOrThrow({
    where: { id },
    select: { quota: true, aff_code: true, aff_count: true, aff_quota: true, aff_history_quota: true },
  });
}

async function setAff(id: number, fields: { aff_quota?: bigint; aff_code?: string | null; quota?: bigint }) {
  await (await getDb()).user.update({ where: { id }, data: fields });
}

describe("GET /api/user/aff", () => {
  it("needs a signed-in user", async () => {
    expect((await call(aff.GET, "GET", "/api/user/aff")).status).toBe(401);
  });

  it("creates a code on first ask for a user without one, then always answers the same code", async () => {
    const u = await createUser({ username: "afnone" });
    expect((await userRow(u.id)).aff_code).toBeNull();
    const first = await call(aff.GET, "GET", "/api/user/aff", { as: u });
    expect(first.json.success).toBe(true);
    expect(first.json.data).toMatch(/^[A-Za-z0-9]{6}$/);
    expect((await userRow(u.id)).aff_code).toBe(first.json.data);
    expect((await call(aff.GET, "GET", "/api/user/aff", { as: u })).json.data).toBe(first.json.data);
    expect((await call(self.GET, "GET", "/api/user/self", { as: u })).json.data.aff_code).toBe(first.json.data);
  });

  it("answers one code to many first asks at once", async () => {
    const u = await createUser({ username: "afrace" });
    const codes = await Promise.all(Array.from({ length: 8 }, () => call(aff.GET, "GET", "/api/user/aff", { as: u })));
    const distinct = new Set(codes.map((r) => r.json.data));
    expect(distinct.size).toBe(1);
    expect((await userRow(u.id)).aff_code).toBe([...distinct][0]);
  });

  it("keeps the code given at registration, and replaces an empty one", async () => {
    await call(register.POST, "POST", "/api/user/register", {
      body: { username: "afreg", password: "password123", password2: "password123" },
      ip: ip(),
    });
    const row = await (await getDb()).user.findUniqueOrThrow({ where: { username: "afreg" } });
    expect(row.aff_code).toMatch(/^[A-Za-z0-9]{6}$/);
    expect(await getAffCode(row.id)).toBe(row.aff_code);
    await setAff(row.id, { aff_code: "" });
    expect(await getAffCode(row.id)).toMatch(/^[A-Za-z0-9]{6}$/);
  });

  it("answers 404 for a user that no longer exists", async () => {
    await expect(getAffCode(987_654)).rejects.toThrow(AFF_MSG.userNotFound);
  });
});

describe("registration with an invite code", () => {
  it("credits the invitee's quota and the inviter's aff_count, aff_quota and aff_history_quota, with logs", async () => {
    await setOption("QuotaForInvitee", "200");
    await setOption("QuotaForInviter", "300");
    const inviter = await createUser({ username: "afinviter" });
    const code = await getAffCode(inviter.id);
    await setAff(inviter.id, { quota: 1000n });
    const res = await call(register.POST, "POST", "/api/user/register", {
      body: { username: "afinvitee", password: "password123", password2: "password123", aff_code: code },
      ip: ip(),
    });
    expect(res.json.success).toBe(true);
    const db = await getDb();
    const invitee = await db.user.findUniqueOrThrow({ where: { username: "afinvitee" } });
    expect(invitee).toMatchObject({ quota: 200n, inviter_id: inviter.id });
    expect(await userRow(inviter.id)).toMatchObject({ quota: 1000n, aff_count: 1, aff_quota: 300n, aff_history_quota: 300n });
    const logs = await db.log.findMany({ where: { user_id: { in: [inviter.id, invitee.id] } }, orderBy: { id: "asc" } });
    expect(logs.map((l) => [l.user_id, l.type, l.content])).toEqual([
      [invitee.id, 4, "使用邀请码赠送 ＄0.000400 额度"],
      [inviter.id, 4, "邀请用户赠送 ＄0.000600 额度"],
    ]);
    const shown = (await call(self.GET, "GET", "/api/user/self", { as: inviter })).json.data;
    expect(shown).toMatchObject({ aff_code: code, aff_count: 1, aff_quota: 300, aff_history_quota: 300 });
  });

  it("counts every one of concurrent registrations with one code", async () => {
    await setOption("QuotaForInviter", "50");
    const inviter = await createUser({ username: "afpopular" });
    const code = await getAffCode(inviter.id);
    const results = await Promise.all(
      [1, 2, 3, 4].map((n) =>
        call(register.POST, "POST", "/api/user/register", {
          body: { username: `afcrowd${n}`, password: "password123", password2: "password123", aff_code: code },
          ip: ip(),
        }),
      ),
    );
    expect(results.every((r) => r.json.success)).toBe(true);
    expect(await userRow(inviter.id)).toMatchObject({ aff_count: 4, aff_quota: 200n, aff_history_quota: 200n });
  });

  it("counts the invitation but credits nothing while the rewards are 0; an unknown code invites nobody", async () => {
    const inviter = await createUser({ username: "afzero" });
    const code = await getAffCode(inviter.id);
    await call(register.POST, "POST", "/api/user/register", {
      body: { username: "afzero1", password: "password123", password2: "password123", aff_code: code },
      ip: ip(),
    });
    expect(await userRow(inviter.id)).toMatchObject({ aff_count: 1, aff_quota: 0n, aff_history_quota: 0n });
    await setOption("QuotaForInvitee", "200");
    await call(register.POST, "POST", "/api/user/register", {
      body: { username: "afnobody", password: "password123", password2: "password123", aff_code: "no-such-code" },
      ip: ip(),
    });
    const stranger = await (await getDb()).user.findUniqueOrThrow({ where: { username: "afnobody" } });
    expect(stranger).toMatchObject({ quota: 0n, inviter_id: 0 });
  });
});

describe("POST /api/user/aff_transfer", () => {
  let u: Caller;
  let other: Caller;
  beforeAll(async () => {
    u = await createUser({ username: "aftransfer", quota: 1000 });
    other = await createUser({ username: "afother", quota: 0 });
    await setAff(other.id, { aff_quota: 5_000_000n });
  });

  const transfer = (body: unknown, as: Caller = u) => call(affTransfer.POST, "POST", "/api/user/aff_transfer", { as, body });

  async function expectRefusedUnchanged(body: unknown, message: string) {
    const before = await userRow(u.id);
    const res = await transfer(body);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.json.success).toBe(false);
    expect(res.json.message).toContain(message);
    expect(await userRow(u.id)).toEqual(before);
  }

  it("needs a signed-in user", async () => {
    expect((await call(affTransfer.POST, "POST", "/api/user/aff_transfer", { body: { quota: 500_000 } })).status).toBe(401);
  });

  it("moves the reward to the balance, tells the relay's caches, and answers the new balances", async () => {
    await setAff(u.id, { aff_quota: 1_500_000n });
    await (await getDb()).user.update({ where: { id: u.id }, data: { aff_history_quota: 1_500_000n } });
    const events: CacheEvent[] = [];
    const stop = onInvalidation((e) => events.push(e));
    const res = await transfer({ quota: 500_000 });
    stop();
    expect(res.json).toEqual({ success: true, message: AFF_MSG.transferred, data: { quota: 501_000, aff_quota: 1_000_000 } });
    expect(await userRow(u.id)).toMatchObject({ quota: 501_000n, aff_quota: 1_000_000n, aff_history_quota: 1_500_000n });
    expect(events).toContainEqual({ kind: "user", id: u.id });
    const shown = (await call(self.GET, "GET", "/api/user/self", { as: u })).json.data;
    expect(shown).toMatchObject({ quota: 501_000, aff_quota: 1_000_000, aff_history_quota: 1_500_000 });
  });

  it("refuses less than one quota unit, in the unit the console shows, changing nothing", async () => {
    await setAff(u.id, { aff_quota: 1_000_000n });
    await expectRefusedUnchanged({ quota: 499_999 }, "转移额度最小为＄1.000000 额度！");
    await expectRefusedUnchanged({ quota: 0 }, "转移额度最小为＄1.000000 额度！");
    await expectRefusedUnchanged({ quota: -500_000 }, "转移额度最小为＄1.000000 额度！");
    await setOption("DisplayInCurrencyEnabled", "false");
    await expectRefusedUnchanged({ quota: 1 }, "转移额度最小为500000 点额度！");
  });

  it("refuses more than the pending reward, changing nothing", async () => {
    await setAff(u.id, { aff_quota: 1_000_000n });
    await expectRefusedUnchanged({ quota: 1_000_001 }, AFF_MSG.insufficient);
  });

  it("refuses a quota that is not an integer, changing nothing", async () => {
    await setAff(u.id, { aff_quota: 1_000_000n });
    for (const body of [{ quota: 500_000.5 }, { quota: "500000" }, { quota: null }, {}, { quota: 1e300 }]) {
      await expectRefusedUnchanged(body, AFF_TRANSFER_INVALID);
    }
  });

  it("moves only the caller's own reward, whatever the body names", async () => {
    await setAff(u.id, { aff_quota: 500_000n });
    const res = await transfer({ quota: 500_000, id: other.id, user_id: other.id });
    expect(res.json.success).toBe(true);
    expect(await userRow(other.id)).toMatchObject({ quota: 0n, aff_quota: 5_000_000n });
    expect((await userRow(u.id)).aff_quota).toBe(0n);
  });

  it("gives the whole reward to exactly one of two concurrent transfers", async () => {
    await setAff(u.id, { aff_quota: 700_000n, quota: 0n });
    const results = await Promise.all([transfer({ quota: 700_000 }), transfer({ quota: 700_000 })]);
    expect(results.filter((r) => r.json.success)).toHaveLength(1);
    expect(results.find((r) => !r.json.success)!.json.message).toBe(AFF_MSG.insufficient);
    expect(await userRow(u.id)).toMatchObject({ quota: 700_000n, aff_quota: 0n });
  });

  it("answers 404 for a user that no longer exists", async () => {
    await expect(transferAffQuota(987_654, 500_000)).rejects.toThrow(AFF_MSG.userNotFound);
  });
});

// The one conditional UPDATE, on each provider, from one client and from two (two instances).
for (const kind of ["sqlite", "postgresql", "mysql"] as DbKind[]) {
  describe(`moving aff quota on ${kind}`, () => {
    let t: TestDatabase;
    let second: Db;
    beforeAll(async () => {
      t = await createTestDatabase(kind);
      second = kind === "sqlite" ? t.db : await openDb(kind, t.dsn);
    });
    afterAll(async () => {
      if (second && second !== t?.db) await second.$disconnect();
      await t?.drop();
    });

    async function seed(affQuota: bigint) {
      const row = await t.db.user.create({
        data: { username: `m${Math.random().toString(36).slice(2, 10)}`, password: "x", quota: 10n, aff_quota: affQuota },
      });
      return row.id;
    }
    const row = (id: number) => t.db.user.findUniqueOrThrow({ where: { id }, select: { quota: true, aff_quota: true } });

    it("lets exactly one of two concurrent transfers of the whole reward through, from two instances", async () => {
      const id = await seed(1_000_000n);
      const results = await Promise.all([moveAffQuota(t.db, id, 1_000_000n), moveAffQuota(second, id, 1_000_000n)]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await row(id)).toEqual({ quota: 1_000_010n, aff_quota: 0n });
    });

    it("never moves more than there is under many concurrent transfers", async () => {
      const id = await seed(1_000_000n);
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => moveAffQuota(i % 2 ? second : t.db, id, 300_000n)));
      expect(results.filter(Boolean)).toHaveLength(3);
      expect(await row(id)).toEqual({ quota: 900_010n, aff_quota: 100_000n });
    });

    it("moves nothing for a deleted user", async () => {
      const id = await seed(1_000_000n);
      await t.db.user.update({ where: { id }, data: { deleted_at: new Date() } });
      expect(await moveAffQuota(t.db, id, 500_000n)).toBe(false);
      expect(await row(id)).toEqual({ quota: 10n, aff_quota: 1_000_000n });
    });
  });
}
