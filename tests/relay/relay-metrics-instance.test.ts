// GET /metrics of a real `npm start` (scripts/start.mjs) on its own SQLite file: 404 while no token
// is set; with METRICS_TOKEN, 401 without it or with a wrong one, and 200 with the whole instance's
// metrics: calls answered by two relay workers summed in every scrape, whichever worker takes it.
// And the console, not the relay workers' usage batches, checkpoints the SQLite WAL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seal } from "@/lib/crypto/secret-box";
import { generateTokenKey, hashTokenKey, tokenKeyHint } from "@/lib/tokens/keys";
import { abilityRowsFor } from "@/lib/channels/abilities";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { createTestDatabase, readCheckpointed, type TestDatabase } from "@/tests/helpers/databases";
import { labelValues } from "@/tests/helpers/metrics";
import { killServer, type Server, startServer } from "@/tests/helpers/instance";

const MODEL = "m-metrics";
const CALLS = 6;
const TOKEN = "instance-scrape-token";

async function seed(t: TestDatabase, upstream: string) {
  await t.db.option.createMany({
    data: [
      { key: "ModelRatio", value: JSON.stringify({ [MODEL]: 1 }) },
      { key: "CompletionRatio", value: JSON.stringify({ [MODEL]: 1 }) },
    ],
  });
  const user = await t.db.user.create({ data: { username: "scraped", email: "scraped@example.com", password: "x", quota: 50_000_000n } });
  const key = generateTokenKey();
  await t.db.token.create({
    data: {
      user_id: user.id,
      key_hash: hashTokenKey(key),
      key_enc: seal(key),
      key_hint: tokenKeyHint(key),
      name: "metrics-key",
      remain_quota: 0n,
      unlimited_quota: true,
      expired_time: -1,
    },
  });
  const channel = await t.db.channel.create({
    data: { type: 1, name: "metrics", key: seal("sk-upstream-secret"), base_url: upstream, models: MODEL, group: "default" },
  });
  await t.db.ability.createMany({
    data: abilityRowsFor({ id: channel.id, models: MODEL, group: "default", priority: 0, weight: 0, status: 1 }),
  });
  return { key: `sk-${key}`, channelId: channel.id };
}

/** A fetch on its own connection, so the primary's round robin spreads them over the workers. */
const fresh = (url: string, init: RequestInit = {}) =>
  fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), connection: "close" } });

/** CALLS chat calls with `key`, each answered 200. */
async function callRelay(url: string, key: string) {
  for (let i = 0; i < CALLS; i++) {
    const res = await fresh(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(200);
    await res.text();
  }
}

describe("GET /metrics of npm start", () => {
  let t: TestDatabase;
  let mock: OpenAIMock;
  let server: Server | undefined;
  let caller: Awaited<ReturnType<typeof seed>>;

  beforeAll(async () => {
    t = await createTestDatabase("sqlite");
    mock = await startOpenAIMock({ behaviour: { usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } } });
    caller = await seed(t, mock.url);
  }, 600_000);

  afterAll(async () => {
    await killServer(server);
    await mock?.close();
    await t?.drop();
  });

  it("is 404 while no token is set", async () => {
    server = await startServer(t, { RELAY_WORKERS: "1" });
    const res = await fresh(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(404);
    await killServer(server);
    server = undefined;
  }, 600_000);

  it("with METRICS_TOKEN: 401 without it or wrong, 200 with the calls of both relay workers summed", async () => {
    server = await startServer(t, { RELAY_WORKERS: "2", METRICS_TOKEN: TOKEN });
    const s = server;
    expect((await fresh(`${s.url}/metrics`)).status).toBe(401);
    expect((await fresh(`${s.url}/metrics`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);

    await callRelay(s.url, caller.key);
    const series = `qiao_relay_requests_total{model="${MODEL}",channel="${caller.channelId}",status_class="2xx"} ${CALLS}`;
    // Every scrape, whichever worker takes it, shows all the calls (each worker holds only its own).
    for (let i = 0; i < 4; i++) {
      await expect
        .poll(async () => {
          const res = await fresh(`${s.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
          expect(res.status).toBe(200);
          return res.text();
        })
        .toContain(series);
    }
    const text = await (await fresh(`${s.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    expect(text).toContain(`qiao_relay_tokens_total{model="${MODEL}",kind="prompt"} ${7 * CALLS}`);
    expect(text).toContain('qiao_channels{state="enabled"} 1');
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    // The event-loop delay is kept per process, not averaged: the primary, the console, both workers.
    for (const name of ["primary", "console", "relay-1", "relay-2"]) {
      expect(text).toMatch(new RegExp(`^qiao_event_loop_delay_p99_seconds\\{process="${name}"\\} \\d`, "m"));
    }
    for (const value of labelValues(text)) {
      expect(value).not.toContain("sk-");
      expect(value).not.toContain("@");
    }
  }, 600_000);

  it("on SQLite, the console checkpoints the WAL: the relay's usage rows reach the database file itself within seconds", async () => {
    await killServer(server);
    server = await startServer(t, { RELAY_WORKERS: "1" });
    const s = server;
    const consumed = () => t.db.log.count({ where: { type: 2 } });
    const before = await consumed();
    await callRelay(s.url, caller.key);
    await expect.poll(consumed).toBe(before + CALLS);
    // The file without its WAL is the database as of the last checkpoint. These few rows are far
    // below the 1000 pages at which a commit would checkpoint by itself.
    const inFile = () => readCheckpointed(t.dsn, "SELECT COUNT(*) AS n FROM logs WHERE type = 2");
    await expect.poll(inFile, { timeout: 10_000 }).toBe(before + CALLS);
  }, 600_000);
});
