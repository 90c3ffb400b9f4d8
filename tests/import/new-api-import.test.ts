// `npm run import:new-api` (lib/import-new-api) from generated new-api v0.3.x, latest new-api and
// one-api databases (tests/fixtures/new-api) on SQLite, MariaDB and PostgreSQL into a fresh Qiao
// database: the dry run counts and writes nothing; the import carries users (passwords still
// verify), keys (found by hash, sealed), channels (sealed keys, multi-key states, abilities),
// options (unknown ones listed), codes, orders, tasks and logs; the sums before and after are equal;
// a second run writes nothing. Then, on SQLite: an interrupted run resumes, and a target already in
// use reports its clashes and overwrites nothing.
// @main-database none (every source and target is named; scripts/database-tests.mjs).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbKind } from "@/lib/db";
import { open } from "@/lib/crypto/secret-box";
import { verifyPassword } from "@/lib/auth/password";
import { int } from "@/lib/db/num";
import { hashTokenKey } from "@/lib/tokens/keys";
import { channelKeyHash } from "@/lib/channels/key-hash";
import { ensureRootUser } from "@/lib/users/root-account";
import { usernameColumns } from "@/lib/users/username";
import { type ImportOptions, type ImportReport, importNewApi } from "@/lib/import-new-api/run";
import { IMPORT_MSG } from "@/lib/import-new-api/tables";
import { buildNewApiFixture, type NewApiFixture } from "@/tests/fixtures/new-api/build";
import type { FixtureFlavor } from "@/tests/fixtures/new-api/schema";
import { createTestDatabase, type TestDatabase } from "@/tests/helpers/databases";

const COUNTED = [
  "users",
  "tokens",
  "channels",
  "abilities",
  "channel_keys",
  "redemptions",
  "top_ups",
  "midjourneys",
  "tasks",
  "quota_data",
  "logs",
  "options",
  "import_map",
  "import_cursors",
];

async function tableCounts(t: TestDatabase): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of COUNTED) out[table] = int((await t.direct.query(`SELECT COUNT(*) AS n FROM ${table}`))[0]!.n);
  return out;
}

const run = (t: TestDatabase, f: NewApiFixture, o: Omit<ImportOptions, "from"> = {}) =>
  importNewApi({ db: t.db, direct: t.direct }, { from: f.from, ...o });
const table = (r: ImportReport, name: string) => r.tables.find((t) => t.table === name)!;

/** Source on one database, Qiao on another: every reader and every writer dialect is exercised. */
const CASES: { source: DbKind; flavor: FixtureFlavor; target: DbKind }[] = [
  { source: "sqlite", flavor: "new-api-latest", target: "sqlite" },
  { source: "sqlite", flavor: "one-api", target: "sqlite" },
  { source: "mysql", flavor: "new-api-v0.3", target: "postgresql" },
  { source: "mysql", flavor: "one-api", target: "sqlite" },
  { source: "postgresql", flavor: "new-api-latest", target: "mysql" },
  { source: "postgresql", flavor: "new-api-v0.3", target: "sqlite" },
];

for (const { source, flavor, target } of CASES) {
  describe(`import ${flavor} on ${source} into Qiao on ${target}`, () => {
    let f: NewApiFixture;
    let t: TestDatabase;
    beforeAll(async () => {
      f = await buildNewApiFixture(source, flavor, { logs: 250, upstreamKey: "sk-upstream-known" });
      t = await createTestDatabase(target);
      await ensureRootUser(t.db);
    });
    afterAll(async () => {
      await t?.drop();
      await f?.drop();
    });

    it("dry run: counts every table, says what cannot be mapped, writes nothing", async () => {
      const before = await tableCounts(t);
      const report = await run(t, f, { logs: true });
      expect(report.applied).toBe(false);
      expect(report.source.flavor).toBe(flavor === "one-api" ? "one-api" : flavor === "new-api-v0.3" ? "new-api v0.3" : "new-api latest");
      for (const [name, rows] of Object.entries(f.counts)) expect(table(report, name).rows, name).toBe(rows);
      expect(table(report, "users")).toMatchObject({ already: 0, imported: f.counts.users, conflicts: 0 });
      expect(table(report, "logs").imported).toBe(f.counts.logs);
      expect(report.options.unsupported).toContain("SomeNewApiOnlySwitch");
      expect(report.options.invalid.map((o) => o.key)).toEqual(["RetryTimes"]);
      expect(report.notes.some((n) => n.table === "users" && n.reason.includes("root"))).toBe(true);
      // Every log's user is planned for import: none would lose its user.
      expect(report.notes.filter((n) => n.table === "logs" && n.reason.includes("用户未导入"))).toEqual([]);
      if (flavor !== "one-api") {
        expect(report.problems).toContainEqual({ table: "top_ups", id: 6, reason: "订单状态 failed 无法对应", conflict: false });
      }
      expect(report.sums.users_quota).toMatchObject({ source: f.sums.usersQuota, skipped: 0n, expected: f.sums.usersQuota, target: null });
      expect(report.sums.tokens_remain_quota.expected).toBe(f.sums.tokensRemain);
      expect(report.sums.redemptions_unused_quota.expected).toBe(f.sums.unusedCodes);
      expect(await tableCounts(t)).toEqual(before);
    });

    it("apply: every row in, the sums equal, passwords, keys and channels usable", async () => {
      const report = await run(t, f, { apply: true, logs: true });
      expect(report.interrupted).toBe(false);
      for (const s of Object.values(report.sums)) expect(s.equal).toBe(true);
      expect(report.sums.users_quota.target).toBe(f.sums.usersQuota);
      expect(report.sums.users_used_quota.target).toBe(f.sums.usersUsedQuota);
      expect(report.sums.tokens_remain_quota.target).toBe(f.sums.tokensRemain);
      expect(report.sums.redemptions_unused_quota.target).toBe(f.sums.unusedCodes);
      const counts = await tableCounts(t);
      // The source root took over Qiao's untouched root: no extra account.
      expect(counts.users).toBe(f.counts.users);
      expect(counts.tokens).toBe(f.counts.tokens);
      expect(counts.channels).toBe(f.counts.channels);
      expect(counts.redemptions).toBe(f.counts.redemptions);
      // The latest new-api's two expired unused codes come in disabled, not redeemable.
      const expired = report.notes.filter((n) => n.table === "redemptions" && n.reason === IMPORT_MSG.codeExpired);
      expect(expired.map((n) => n.id).sort()).toEqual(flavor === "new-api-latest" ? [1, 2] : []);
      expect(await t.db.redemption.count({ where: { status: 2 } })).toBe(3 + expired.length);
      expect(counts.logs).toBe(f.counts.logs);
      if (flavor !== "one-api") expect([counts.top_ups, counts.midjourneys, counts.tasks, counts.quota_data]).toEqual([5, 4, 3, 10]);
      if (flavor === "new-api-v0.3") expect(await t.db.task.count({ where: { token_id: { not: 0 } } })).toBe(0);

      const alice = await t.db.user.findUniqueOrThrow({ where: { username: "alice" } });
      expect(await verifyPassword(f.known.password, alice.password)).toBe(true);
      expect(alice.aff_count).toBe(flavor === "one-api" ? 0 : 3);
      const root = await t.db.user.findUniqueOrThrow({ where: { username: "root" } });
      expect(root.role).toBe(100);
      expect(await verifyPassword("root-pass-9", root.password)).toBe(true);
      const invited = await t.db.user.count({ where: { inviter_id: alice.id } });
      expect(invited).toBeGreaterThan(0);

      const token = await t.db.token.findUniqueOrThrow({ where: { key_hash: hashTokenKey(f.known.tokenKey) } });
      expect(token.user_id).toBe(alice.id);
      expect(open(token.key_enc)).toBe(f.known.tokenKey);
      expect(token.remain_quota).toBe(40_000_000n);

      const channel = await t.db.channel.findFirstOrThrow({ where: { name: "openai-main" } });
      expect(open(channel.key)).toBe("sk-upstream-known");
      expect(channel.openai_organization).toBe(flavor === "one-api" ? "" : "org-known");
      expect(channel.model_mapping).toBe('{"gpt-4o":"gpt-4o-2024-08-06"}');
      expect(channel.priority).toBe(10);
      expect(await t.db.ability.count({ where: { channel_id: channel.id } })).toBe(4);
      const unknown = await t.db.channel.findFirstOrThrow({ where: { name: "unknown-type" } });
      expect(unknown.status).toBe(2);
      if (flavor === "new-api-latest") {
        const multi = await t.db.channel.findFirstOrThrow({ where: { name: "multi" }, include: { keys: true } });
        expect(multi.multi_key_mode).toBe("polling");
        expect(multi.keys).toEqual([
          expect.objectContaining({ key_hash: channelKeyHash("sk-multi-b"), status: 3, disabled_reason: "quota exceeded" }),
        ]);
        expect(report.droppedColumns, JSON.stringify(report.droppedColumns)).toMatchObject({ "channels.setting": 1, "tasks.group": 3 });
        // A task keeps the key that submitted it (a refund returns the key's share there) and is
        // asked for by the vendor's own id, said in the report.
        const tasks = await t.db.task.findMany({
          orderBy: { task_id: "asc" },
          select: { task_id: true, token_id: true, token_quota: true },
        });
        expect(tasks).toEqual([
          { task_id: "suno-1", token_id: token.id, token_quota: 100_000n },
          { task_id: "suno-2", token_id: 0, token_quota: 0n },
          { task_id: "suno-upstream-0", token_id: token.id, token_quota: 100_000n },
        ]);
        expect(report.notes).toContainEqual({
          table: "tasks",
          id: 1,
          reason: IMPORT_MSG.taskUpstreamId("task_public0", "suno-upstream-0"),
          conflict: false,
        });
        const status = async (name: string) => (await t.db.channel.findFirstOrThrow({ where: { name } })).status;
        expect([await status("vertex-api-key"), await status("aws-api-key"), await status("vertex-json")]).toEqual([2, 2, 1]);
        expect(report.notes.filter((n) => n.table === "channels").map((n) => n.reason)).toEqual(
          expect.arrayContaining([
            "Vertex AI 渠道使用 API Key，Qiao 的 Vertex AI 渠道需要服务账号 JSON 凭证，导入后为禁用状态",
            "AWS 渠道使用 API Key，Qiao 的 AWS 渠道需要 AccessKey|SecretAccessKey|Region，导入后为禁用状态",
          ]),
        );
        expect(report.notes).toContainEqual({
          table: "logs",
          id: 0,
          reason: "5 条日志的类型 6 是 Qiao 没有的，按原值导入",
          conflict: false,
        });
      }
      if (flavor === "one-api") {
        // one-api's type numbers and `config` become the Qiao channel that calls the same upstream.
        const byName = async (name: string) => {
          const c = await t.db.channel.findFirstOrThrow({ where: { name } });
          return { type: c.type, key: open(c.key), base_url: c.base_url, other: c.other, status: c.status };
        };
        expect(await byName("azure")).toMatchObject({ type: 3, other: "2024-10-21" });
        expect(await byName("one-deepseek")).toMatchObject({ type: 43, key: "sk-deepseek-7", status: 1 });
        expect(await byName("one-aws")).toMatchObject({ type: 33, key: "AKIAEXAMPLE|secret/example|us-east-1" });
        expect(await byName("one-vertex")).toMatchObject({
          type: 41,
          key: '{"type":"service_account","project_id":"proj-1"}',
          other: "europe-west4",
        });
        expect(await byName("one-groq")).toMatchObject({ type: 1, base_url: "https://api.groq.com/openai", status: 1 });
        expect(await byName("one-doubao")).toMatchObject({
          type: 8,
          base_url: "https://ark.cn-beijing.volces.com/api/v3/chat/completions",
        });
        expect(await byName("one-coze")).toMatchObject({ type: 0, status: 2 });
        expect(await byName("one-cloudflare")).toMatchObject({ type: 39, other: "acc-13" });
        expect(await byName("one-compatible")).toMatchObject({ type: 8, base_url: "https://open.example.cn/api/paas/v4/chat/completions" });
        const notes = report.notes.filter((n) => n.table === "channels").map((n) => n.reason);
        expect(notes).toEqual(
          expect.arrayContaining([
            "one-api 渠道类型 34（Coze）不受支持，导入后为禁用状态",
            "one-api 的该渠道类型在 Qiao 中为自定义渠道（https://ark.cn-beijing.volces.com/api/v3/chat/completions），只转发对话接口",
          ]),
        );
      }
      const options = Object.fromEntries((await t.db.option.findMany()).map((o) => [o.key, o.value]));
      expect(options.SystemName).toBe("旧网关");
      expect(options.QuotaForNewUser).toBe("250000");
      expect(options.SomeNewApiOnlySwitch).toBeUndefined();
      if (flavor === "new-api-latest") {
        expect([options.DisplayInCurrencyEnabled, options.ChannelTestInterval]).toEqual(["false", "30"]);
        expect(report.options.unsupported).toContain("console_setting.api_info");
        expect(report.options.unsupported.filter((k) => k.startsWith("general_setting") || k.startsWith("monitor_setting"))).toEqual([]);
      }
      expect(options.RetryTimes).toBeUndefined();
    });

    it("a second run imports nothing and changes nothing", async () => {
      const before = await tableCounts(t);
      const report = await run(t, f, { apply: true, logs: true });
      for (const tr of report.tables) expect(tr.imported, tr.table).toBe(0);
      expect(table(report, "users").already).toBe(f.counts.users);
      expect(table(report, "logs").already).toBe(f.counts.logs);
      for (const s of Object.values(report.sums)) expect(s.equal).toBe(true);
      expect(report.options.imported).toEqual([]);
      expect(await tableCounts(t)).toEqual(before);
    });
  });
}

describe("an interrupted import resumes where it stopped", () => {
  let f: NewApiFixture;
  let t: TestDatabase;
  beforeAll(async () => {
    f = await buildNewApiFixture("sqlite", "new-api-latest", { logs: 1000 });
    t = await createTestDatabase("sqlite");
    await ensureRootUser(t.db);
  });
  afterAll(async () => {
    await t?.drop();
    await f?.drop();
  });

  it("stops after some batches, then the next run finishes with every row once and the sums equal", async () => {
    const first = await run(t, f, { apply: true, logs: true, batch: 5, logBatch: 100, stopAfterBatches: 4 });
    expect(first.interrupted).toBe(true);
    expect(table(first, "users").imported).toBe(20);
    expect(await t.db.user.count()).toBe(20);
    const second = await run(t, f, { apply: true, logs: true, batch: 5, logBatch: 100, stopAfterBatches: 30 });
    expect(second.interrupted).toBe(true);
    expect(table(second, "users").already).toBe(20);
    const third = await run(t, f, { apply: true, logs: true, batch: 5, logBatch: 100 });
    expect(third.interrupted).toBe(false);
    for (const s of Object.values(third.sums)) expect(s.equal).toBe(true);
    const counts = await tableCounts(t);
    expect([counts.users, counts.tokens, counts.logs]).toEqual([f.counts.users, f.counts.tokens, f.counts.logs]);
    const [dup] = await t.direct.query("SELECT COUNT(*) AS n FROM (SELECT request_id FROM logs GROUP BY request_id HAVING COUNT(*) > 1) d");
    expect(int(dup!.n)).toBe(0);
  });
});

describe("logs in a database of their own (LOG_SQL_DSN)", () => {
  let f: NewApiFixture;
  let t: TestDatabase;
  let logs: TestDatabase;
  beforeAll(async () => {
    f = await buildNewApiFixture("sqlite", "new-api-latest", { logs: 300 });
    t = await createTestDatabase("sqlite");
    logs = await createTestDatabase("postgresql");
    await ensureRootUser(t.db);
  });
  afterAll(async () => {
    await t?.drop();
    await logs?.drop();
    await f?.drop();
  });

  it("writes the log rows and their cursor there, none in the main database, and resumes from that cursor", async () => {
    const target = { db: t.db, direct: t.direct, logs: logs.direct };
    const first = await importNewApi(target, { from: f.from, apply: true, logs: true, logBatch: 50, stopAfterBatches: 3 });
    expect(first.interrupted).toBe(true);
    const done = await importNewApi(target, { from: f.from, apply: true, logs: true, logBatch: 50 });
    expect(done.interrupted).toBe(false);
    for (const s of Object.values(done.sums)) expect(s.equal).toBe(true);
    const count = async (db: TestDatabase, table: string) => int((await db.direct.query(`SELECT COUNT(*) AS n FROM ${table}`))[0]!.n);
    expect(await count(logs, "logs")).toBe(f.counts.logs);
    expect(await count(t, "logs")).toBe(0);
    expect(await count(logs, "import_cursors")).toBe(1);
    expect(await count(t, "import_cursors")).toBe(0);
    const again = await importNewApi(target, { from: f.from, apply: true, logs: true, logBatch: 50 });
    expect(table(again, "logs").imported).toBe(0);
    expect(await count(logs, "logs")).toBe(f.counts.logs);
  });
});

describe("a target already in use", () => {
  let f: NewApiFixture;
  let t: TestDatabase;
  beforeAll(async () => {
    f = await buildNewApiFixture("sqlite", "new-api-v0.3", { logs: 50 });
    t = await createTestDatabase("sqlite");
    // An operator's Qiao: root's password changed, an "Alice" who is someone else.
    await t.db.user.create({
      data: { ...usernameColumns("root"), password: "$2a$04$notthedefaultpasswordhashxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", role: 100 },
    });
    await t.db.user.create({ data: { ...usernameColumns("Alice"), password: "x", quota: 7n } });
    // Someone whose address and GitHub account the old install's users #3 and #5 also have.
    await t.db.user.create({ data: { ...usernameColumns("carol"), password: "x", email: "U3@Example.com", github_id: "1005" } });
  });
  afterAll(async () => {
    await t?.drop();
    await f?.drop();
  });

  it("reports the clashing usernames and what depends on them, overwrites nothing, and the sums still balance", async () => {
    const report = await run(t, f, { apply: true, logs: true });
    expect(report.problems).toContainEqual({ table: "users", id: 1, reason: "用户名 root 已被占用", conflict: true });
    expect(report.problems).toContainEqual({ table: "users", id: 2, reason: "用户名 alice 已被占用", conflict: true });
    const tokenProblems = report.problems.filter((p) => p.table === "tokens");
    expect(tokenProblems.length).toBeGreaterThan(0);
    expect(tokenProblems.every((p) => /所属用户 #[12] 未导入/.test(p.reason))).toBe(true);
    expect(table(report, "users")).toMatchObject({ conflicts: 2, imported: f.counts.users - 2 });
    expect(report.notes.some((n) => n.reason.includes("默认密码 123456"))).toBe(false);
    const existing = await t.db.user.findUniqueOrThrow({ where: { username: "Alice" } });
    expect([existing.password, existing.quota]).toEqual(["x", 7n]);
    expect(await t.db.user.count()).toBe(f.counts.users + 1);
    // The address and the binding stay carol's: the imported accounts come without them.
    expect(report.notes).toContainEqual({
      table: "users",
      id: 3,
      reason: "邮箱 u3@example.com 已属于 Qiao 的其他账户，导入时留空",
      conflict: false,
    });
    expect(report.notes).toContainEqual({
      table: "users",
      id: 5,
      reason: "GitHub 1005 已属于 Qiao 的其他账户，导入时留空",
      conflict: false,
    });
    const [third] = await t.direct.query(
      "SELECT u.email, u.github_id FROM users u JOIN import_map m ON m.new_id = u.id AND m.\"table\" = 'users' WHERE m.old_id = 3",
    );
    expect(third).toMatchObject({ email: "" });
    expect(await t.db.user.count({ where: { github_id: "1005" } })).toBe(1);
    for (const s of Object.values(report.sums)) expect(s.equal).toBe(true);
    expect(report.sums.users_quota.skipped).toBeGreaterThan(0n);
    expect(report.sums.users_quota.expected).toBe(f.sums.usersQuota - report.sums.users_quota.skipped);
    expect(await t.db.token.count({ where: { key_hash: hashTokenKey(f.known.tokenKey) } })).toBe(0);
  });
});

describe("a source whose root has another name", () => {
  let f: NewApiFixture;
  let t: TestDatabase;
  beforeAll(async () => {
    f = await buildNewApiFixture("sqlite", "one-api", { logs: 10 });
    await f.exec("UPDATE users SET username = 'boss' WHERE id = 1");
    t = await createTestDatabase("sqlite");
    await ensureRootUser(t.db);
  });
  afterAll(async () => {
    await t?.drop();
    await f?.drop();
  });

  it("imports it beside Qiao's root and says that root still has the default password", async () => {
    const note = { table: "users", id: 0, reason: "Qiao 的 root 账户仍使用默认密码 123456，请尽快修改", conflict: false };
    expect((await run(t, f)).notes).toContainEqual(note);
    const report = await run(t, f, { apply: true });
    expect(report.notes).toContainEqual(note);
    expect(await t.db.user.count({ where: { role: 100 } })).toBe(2);
    expect(await t.db.user.count()).toBe(f.counts.users + 1);
  });
});
