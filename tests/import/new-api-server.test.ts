// After `npm run import:new-api`, the real server (`npm start`) on the imported database: a user
// of the new-api install signs in with their old password, the official `openai` client calls
// /v1/chat/completions with one of their old sk- keys, the imported channel relays it to its
// upstream (a mock) with its imported key, and the user and the key are billed what the log says.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importNewApi } from "@/lib/import-new-api/run";
import { ensureRootUser } from "@/lib/users/root-account";
import { hashTokenKey } from "@/lib/tokens/keys";
import { buildNewApiFixture, type NewApiFixture } from "@/tests/fixtures/new-api/build";
import { createTestDatabase, type TestDatabase } from "@/tests/helpers/databases";
import { killServer, type Server, startServer } from "@/tests/helpers/instance";
import { type OpenAIMock, startOpenAIMock } from "@/tests/mocks/openai-upstream";

const UPSTREAM_KEY = "sk-upstream-imported";

describe("Qiao serving an imported new-api install", () => {
  let mock: OpenAIMock;
  let f: NewApiFixture;
  let t: TestDatabase;
  let server: Server | undefined;

  beforeAll(async () => {
    mock = await startOpenAIMock({ apiKey: UPSTREAM_KEY, behaviour: { content: "hello from upstream" } });
    f = await buildNewApiFixture("sqlite", "new-api-latest", { logs: 20, upstreamUrl: mock.url, upstreamKey: UPSTREAM_KEY });
    t = await createTestDatabase("sqlite");
    await ensureRootUser(t.db);
    const report = await importNewApi({ db: t.db, direct: t.direct }, { from: f.from, apply: true, logs: true });
    expect(Object.values(report.sums).every((s) => s.equal)).toBe(true);
    server = await startServer(t, {});
  }, 600_000);

  afterAll(async () => {
    await killServer(server);
    await mock?.close();
    await t?.drop();
    await f?.drop();
  });

  it("signs the user in with the old password, relays their old key to the imported channel, and bills them", async () => {
    const s = server!;
    const login = await fetch(`${s.url}/api/user/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: f.known.username, password: f.known.password }),
    });
    const loginBody = await login.json();
    expect(loginBody).toMatchObject({ success: true, data: { username: f.known.username } });
    const wrong = await fetch(`${s.url}/api/user/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: f.known.username, password: "not-the-password" }),
    });
    expect((await wrong.json()).success).toBe(false);

    const user = await t.db.user.findUniqueOrThrow({ where: { username: f.known.username } });
    const token = await t.db.token.findUniqueOrThrow({ where: { key_hash: hashTokenKey(f.known.tokenKey) } });
    const logsBefore = await t.db.log.count({ where: { user_id: user.id } });

    const client = new OpenAI({ apiKey: `sk-${f.known.tokenKey}`, baseURL: `${s.url}/v1`, maxRetries: 0 });
    const answer = await client.chat.completions.create({ model: f.known.model, messages: [{ role: "user", content: "hi" }] });
    expect(answer.choices[0]?.message.content).toBe("hello from upstream");
    expect(mock.requests.at(-1)?.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);

    // Stopped: the relay flushes its usage and closes its holds, so the balances are final.
    s.child.kill("SIGTERM");
    expect(await s.exited).toBe(0);
    server = undefined;
    const newLogs = await t.db.log.findMany({ where: { user_id: user.id, type: 2 }, orderBy: { id: "desc" }, take: 1 });
    expect(await t.db.log.count({ where: { user_id: user.id } })).toBe(logsBefore + 1);
    const spent = newLogs[0]!.quota;
    expect(newLogs[0]).toMatchObject({ model_name: f.known.model, token_id: token.id });
    expect(spent).toBeGreaterThan(0n);
    const userAfter = await t.db.user.findUniqueOrThrow({ where: { id: user.id } });
    const tokenAfter = await t.db.token.findUniqueOrThrow({ where: { id: token.id } });
    expect(userAfter.quota + spent).toBe(user.quota);
    expect(userAfter.used_quota - spent).toBe(user.used_quota);
    expect(tokenAfter.remain_quota + spent).toBe(token.remain_quota);
  }, 120_000);
});
