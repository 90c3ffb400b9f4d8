// LOG_SQL_DSN (issue 27): a real `npm start` whose `logs` table lives in a second database, in
// the two setups the issue names: main SQLite with the logs on PostgreSQL, and main PostgreSQL
// with the logs in another PostgreSQL database; and main SQLite with the logs on MariaDB (all but
// the daily retention, which waits a minute for its first check). The server migrates the empty log database at
// start; a relay call through the official OpenAI SDK writes its consume row there and none in
// the main database; /api/log, /api/log/self, both stats and both exports read there; the manual
// cleanup deletes there, and so does the daily retention (its first check, a minute after start).
// @main-database none (both setups name their databases; scripts/database-tests.mjs).
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seal } from "@/lib/crypto/secret-box";
import { generateTokenKey, hashTokenKey, tokenKeyHint } from "@/lib/tokens/keys";
import { abilityRowsFor } from "@/lib/channels/abilities";
import { encodeSession } from "@/lib/auth/session";
import { createSessionRow } from "@/lib/auth/sessions";
import { ROLE } from "@/lib/auth/roles";
import type { DbKind } from "@/lib/db";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { createTestDatabase, type TestDatabase } from "@/tests/helpers/databases";
import { killServer, type Server, startServer } from "@/tests/helpers/instance";

/** A call of m-call costs exactly this (ModelPrice 0.002 × QuotaPerUnit 500 000). */
const CALL_PRICE = 1000;
const DAY = 86_400;

type Signed = { id: number; cookie: string };
type Answer = { status: number; json: { success?: boolean; message?: string; data?: Record<string, unknown> }; text: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, limitMs: number): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() - start > limitMs)
      throw new Error(`${what}: not within ${limitMs} ms (last: ${JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? String(x) : x))})`);
    await sleep(100);
  }
}

describe.each([
  { main: "sqlite" as DbKind, logs: "postgresql" as DbKind },
  { main: "postgresql" as DbKind, logs: "postgresql" as DbKind },
  { main: "sqlite" as DbKind, logs: "mysql" as DbKind },
])("LOG_SQL_DSN: main $main, logs in a $logs database of their own", ({ main: mainKind, logs: logsKind }) => {
  let main: TestDatabase;
  let logs: TestDatabase;
  let mock: OpenAIMock;
  let server: Server | undefined;
  let startedAt = 0;
  let root: Signed;
  let payer: Signed & { key: string };
  const now = () => Math.floor(Date.now() / 1000);

  const signIn = async (userId: number): Promise<Signed> => {
    const u = await main.db.user.findUniqueOrThrow({ where: { id: userId } });
    const jti = await createSessionRow(new Headers({ "user-agent": "log-db" }), u.id, "password", { db: main.direct });
    const value = await encodeSession({ id: u.id, username: u.username, role: u.role, ver: u.auth_version, jti });
    return { id: u.id, cookie: `qiao_session=${value}` };
  };
  const api = async (as: Signed, method: string, path: string, body?: unknown): Promise<Answer> => {
    const res = await fetch(`${server!.url}${path}`, {
      method,
      headers: { cookie: as.cookie, "new-api-user": String(as.id), "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json = {};
    try {
      json = JSON.parse(text);
    } catch {
      // a CSV
    }
    return { status: res.status, json, text };
  };
  const countIn = async (t: TestDatabase, where = "1 = 1") =>
    Number((await t.direct.query(`SELECT COUNT(*) AS n FROM logs WHERE ${where}`))[0]!.n);

  beforeAll(async () => {
    main = await createTestDatabase(mainKind);
    // The log database is empty: the server migrates it at start.
    logs = await createTestDatabase(logsKind, { migrate: false });
    mock = await startOpenAIMock({ behaviour: { usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 } } });
    server = await startServer(main, { LOG_SQL_DSN: logs.dsn, SESSION_SECRET: process.env.SESSION_SECRET ?? "" });
    startedAt = Date.now();

    const rootRow = await main.db.user.findFirstOrThrow({ where: { role: ROLE.root } });
    root = await signIn(rootRow.id);
    const channel = await main.db.channel.create({
      data: { type: 1, name: "up", key: seal("sk-up"), base_url: mock.url, models: "m-call", group: "default" },
    });
    await main.db.ability.createMany({
      data: abilityRowsFor({ id: channel.id, models: "m-call", group: "default", priority: 0, weight: 0, status: 1 }),
    });
    const user = await main.db.user.create({ data: { username: "payer", password: "x", quota: 1_000_000n, role: ROLE.user } });
    const k = generateTokenKey();
    await main.db.token.create({
      data: {
        user_id: user.id,
        key_hash: hashTokenKey(k),
        key_enc: seal(k),
        key_hint: tokenKeyHint(k),
        name: "k",
        unlimited_quota: true,
        expired_time: -1,
      },
    });
    payer = { ...(await signIn(user.id)), key: `sk-${k}` };
    for (const [key, value] of [
      ["ModelPrice", JSON.stringify({ "m-call": 0.002 })],
      ["LogRetentionSystemDays", "1"],
    ]) {
      const res = await api(root, "PUT", "/api/option/", { key, value });
      expect(res.json, `${key}: ${res.json.message}`).toMatchObject({ success: true });
    }
    // For the retention's first check (a minute after start): a system row three days old, kept one day.
    // For the manual cleanup: two admin rows ten days old (no retention for admin rows).
    await logs.db.log.createMany({
      data: [
        { user_id: rootRow.id, username: rootRow.username, type: 4, content: "old system", created_at: now() - 3 * DAY },
        { user_id: rootRow.id, username: rootRow.username, type: 3, content: "old admin 1", created_at: now() - 10 * DAY },
        { user_id: rootRow.id, username: rootRow.username, type: 3, content: "old admin 2", created_at: now() - 10 * DAY },
      ],
    });
  }, 900_000);

  afterAll(async () => {
    await killServer(server);
    await mock?.close();
    await main?.drop();
    await logs?.drop();
  });

  it("migrates the empty log database at start, with the logs table's indexes", async () => {
    const applied = await logs.direct.query("SELECT id FROM qiao_migrations ORDER BY id");
    const mainApplied = await main.direct.query("SELECT id FROM qiao_migrations ORDER BY id");
    expect(applied.map((r) => r.id)).toEqual(mainApplied.map((r) => r.id));
    const indexes =
      logsKind === "mysql"
        ? (await logs.direct.query("SHOW INDEX FROM logs")).map((r) => r.Key_name)
        : (await logs.direct.query("SELECT indexname FROM pg_indexes WHERE tablename = 'logs'")).map((r) => r.indexname);
    expect(indexes).toEqual(
      expect.arrayContaining([
        logsKind === "mysql" ? "PRIMARY" : "logs_pkey",
        "logs_created_at_type_quota_idx",
        "logs_user_id_created_at_type_quota_idx",
      ]),
    );
  });

  it("/readyz checks the log database", async () => {
    const res = await fetch(`${server!.url}/readyz`);
    expect(res.status).toBe(200);
    expect((await res.json()).checks.logs).toMatchObject({ ok: true, configured: true });
  });

  it("a relay call writes its consume row to the log database and none to the main one", async () => {
    const client = new OpenAI({ apiKey: payer.key, baseURL: `${server!.url}/v1`, maxRetries: 0 });
    const answer = await client.chat.completions.create({ model: "m-call", messages: [{ role: "user", content: "hi" }] });
    expect(answer.choices[0]?.message.content).toBeTruthy();
    const rows = await until(
      "the consume row",
      () => logs.db.log.findMany({ where: { user_id: payer.id, type: 2 } }),
      (r) => r.length === 1,
      10_000,
    );
    expect(rows[0]).toMatchObject({
      username: "payer",
      model_name: "m-call",
      token_name: "k",
      quota: BigInt(CALL_PRICE),
      prompt_tokens: 5,
    });
    // The money and the dashboard bucket stay in the main database.
    const user = await main.db.user.findUniqueOrThrow({ where: { id: payer.id } });
    expect(user.used_quota).toBe(BigInt(CALL_PRICE));
    expect(await main.db.quotaData.count({ where: { user_id: payer.id } })).toBe(1);
    // Nothing at all is written to the main database's logs table (the option changes' rows neither).
    expect(await countIn(main)).toBe(0);
  });

  it("/api/log, /api/log/self, both stats and both exports read the log database", async () => {
    const range = `start_timestamp=${now() - DAY}&end_timestamp=${now() + 3600}`;
    const list = await api(root, "GET", `/api/log/?p=0&page_size=10&type=2&${range}`);
    expect(list.json.data).toMatchObject({ total: 1, items: [{ username: "payer", model_name: "m-call", quota: CALL_PRICE }] });
    const own = await api(payer, "GET", `/api/log/self?p=0&page_size=10&${range}`);
    expect(own.json.data).toMatchObject({ total: 1, items: [{ model_name: "m-call", quota: CALL_PRICE }] });
    const stat = await api(root, "GET", `/api/log/stat?type=2&${range}`);
    expect(stat.json.data).toMatchObject({ quota: CALL_PRICE, rpm: 1, tpm: 10 });
    const ownStat = await api(payer, "GET", `/api/log/self/stat?${range}`);
    expect(ownStat.json.data).toMatchObject({ quota: CALL_PRICE, rpm: 1 });
    const csv = await api(root, "GET", `/api/log/export?type=2&${range}`);
    expect(csv.status).toBe(200);
    expect(csv.text).toContain("m-call");
    expect(csv.text).toContain("payer");
    const ownCsv = await api(payer, "GET", `/api/log/self/export?${range}`);
    expect(ownCsv.text).toContain("m-call");
    // The ten-day-old admin rows are there too (no time filter).
    const admin = await api(root, "GET", "/api/log/?p=0&page_size=10&type=3&start_timestamp=0&end_timestamp=0");
    expect(admin.json.data).toMatchObject({ total: 2 });
  });

  it("the manual cleanup deletes in the log database", async () => {
    const res = await api(root, "DELETE", `/api/log/?target_timestamp=${now() - 5 * DAY}`);
    expect(res.json).toMatchObject({ success: true, data: 2 });
    expect(await countIn(logs, "type = 3")).toBe(0);
    // The consume row and the three-day-old system row are newer than the cut-off.
    expect(await countIn(logs, "type = 2")).toBe(1);
  });

  // On PostgreSQL only: its first check comes a minute after start (the suite's time).
  if (logsKind === "postgresql")
    it("the daily retention deletes in the log database", async () => {
      // The first retention check runs a minute after the console started.
      await until(
        "the retention",
        () => countIn(logs, `type = 4 AND created_at < ${now() - DAY}`),
        (n) => n === 0,
        Math.max(10_000, startedAt + 100_000 - Date.now()),
      );
      // The job logs after its last batch: the line may reach us a moment after the rows are gone.
      await expect.poll(() => server!.output(), { timeout: 10_000 }).toContain('"msg":"retention deleted"');
      expect(await countIn(logs, "type = 2")).toBe(1);
      expect(await countIn(main)).toBe(0);
    }, 150_000);
});
