// The circuit breaker through the relay, with mock upstreams that fail on command: a primary
// channel (priority 10) that fails and a backup (priority 0) that answers. N failures open the
// primary and traffic moves to the backup; after the cool-down exactly one trial reaches the
// primary; a failed trial opens it again, a good one closes it; turned off, nothing is skipped;
// and two relay processes on one database and Redis see each other's openings.
import { randomInt } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { publishInvalidation } from "@/lib/cache/bus";
import { updateOption } from "@/lib/options";
import { defaultRaw } from "@/lib/options/registry";
import { rebuildAllAbilities } from "@/lib/channels/abilities";
import { resetBreakers } from "@/lib/channels/breaker";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { startRelayProcess } from "@/tests/helpers/process";
import { clearRelayData, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";
import { testRedisUrl } from "@/tests/helpers/redis";

const MODEL = "m-breaker";
const OPTIONS = {
  RetryTimes: "1",
  ChannelBreakerEnabled: "true",
  ChannelBreakerFailures: "3",
  ChannelBreakerWindowSeconds: "60",
  ChannelBreakerCooldownSeconds: "1",
} as const;

let primary: OpenAIMock;
let backup: OpenAIMock;
let relay: RelayServer;
let user: Awaited<ReturnType<typeof seedUser>>;
let primaryId: number;

const chat = (url: string) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }] }),
  }).then((r) => r.status);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Channel ids no other run uses: breaker openings travel between instances on Redis by channel
 * id, and other runs (their own databases, ids from 1) share this Redis.
 */
async function seedChannels() {
  await clearRelayData();
  const db = await getDb();
  const ids: number[] = [];
  for (const [mock, priority] of [
    [primary, 10],
    [backup, 0],
  ] as const) {
    const seeded = await seedChannel({ base_url: mock.url, models: MODEL, priority });
    const id = randomInt(1_000_000_000, 2_000_000_000);
    await db.ability.deleteMany({ where: { channel_id: seeded.id } });
    await db.channel.update({ where: { id: seeded.id }, data: { id } });
    ids.push(id);
  }
  await rebuildAllAbilities(db as never);
  publishInvalidation({ kind: "channels" });
  primaryId = ids[0]!;
}

beforeAll(async () => {
  primary = await startOpenAIMock();
  backup = await startOpenAIMock();
  relay = await startRelay("node");
  user = await seedUser();
  await updateOption("ModelRatio", JSON.stringify({ [MODEL]: 1 }));
  for (const [key, value] of Object.entries(OPTIONS)) await updateOption(key, value);
  await seedChannels();
});
afterAll(async () => {
  for (const key of [...Object.keys(OPTIONS), "ModelRatio"] as const) await updateOption(key, defaultRaw(key as keyof typeof OPTIONS));
  await relay.close();
  await primary.close();
  await backup.close();
});
beforeEach(() => {
  resetBreakers();
  primary.reset();
  backup.reset();
});

async function adminInfos() {
  await settleAll();
  const logs = await (await getDb()).log.findMany({ where: { user_id: user.id }, orderBy: { id: "asc" } });
  return logs.map((l) => JSON.parse(l.other).admin_info as Record<string, unknown>);
}

describe("the circuit breaker", () => {
  it("opens after N failures, moves traffic to the backup, lets exactly one trial through, reopens on its failure and closes on its success", async () => {
    primary.setBehaviour({ failStatus: 500 });
    const logsBefore = (await adminInfos()).length;
    // Three failures on the primary (each request then answered by the backup) open it.
    for (let i = 0; i < 3; i++) expect(await chat(relay.url)).toBe(200);
    expect(primary.requests).toHaveLength(3);
    for (let i = 0; i < 5; i++) expect(await chat(relay.url)).toBe(200);
    expect(primary.requests).toHaveLength(3);
    expect(backup.requests).toHaveLength(8);
    const infos = (await adminInfos()).slice(logsBefore);
    expect(infos[2]).toMatchObject({ breaker_opened: [primaryId] });
    expect(infos[3]).toMatchObject({ breaker_skipped: 1 });
    expect(infos[0]!.breaker_opened).toBeUndefined();

    // After the cool-down, of 6 requests at once exactly one reaches the primary: it fails again.
    await sleep(1100);
    expect(await Promise.all(Array.from({ length: 6 }, () => chat(relay.url)))).toEqual(Array(6).fill(200));
    expect(primary.requests).toHaveLength(4);
    for (let i = 0; i < 3; i++) await chat(relay.url);
    expect(primary.requests).toHaveLength(4);

    // The next cool-down's trial succeeds: the primary takes the traffic again.
    primary.setBehaviour(null);
    await sleep(1100);
    expect(await Promise.all(Array.from({ length: 6 }, () => chat(relay.url)))).toEqual(Array(6).fill(200));
    expect(primary.requests).toHaveLength(5);
    for (let i = 0; i < 3; i++) await chat(relay.url);
    expect(primary.requests).toHaveLength(8);
  });

  it("counts no 4xx or 429", async () => {
    primary.setBehaviour({ failStatus: 429 });
    for (let i = 0; i < 5; i++) await chat(relay.url);
    expect(primary.requests).toHaveLength(5);
  });

  it("turned off, skips nothing", async () => {
    await updateOption("ChannelBreakerEnabled", "false");
    try {
      primary.setBehaviour({ failStatus: 502 });
      for (let i = 0; i < 6; i++) expect(await chat(relay.url)).toBe(200);
      expect(primary.requests).toHaveLength(6);
    } finally {
      await updateOption("ChannelBreakerEnabled", "true");
    }
  });

  it("with every channel open, still answers through the one that reopens first", async () => {
    primary.setBehaviour({ failStatus: 500 });
    backup.setBehaviour({ failStatus: 500 });
    for (let i = 0; i < 3; i++) expect(await chat(relay.url)).toBe(500);
    backup.setBehaviour(null);
    // Both open now; the primary opened first, so it is tried first, then the backup answers.
    expect(await chat(relay.url)).toBe(200);
  });

  it("two relay processes on one database and Redis: one's opening makes the other skip the channel", async () => {
    await updateOption("ChannelBreakerCooldownSeconds", "60");
    const env = { REDIS_CONN_STRING: testRedisUrl(0) };
    const relays = await Promise.all([startRelayProcess(env), startRelayProcess(env)]);
    try {
      // Both have loaded the table and subscribed before the primary fails.
      expect(await chat(relays[1]!.url)).toBe(200);
      primary.reset();
      primary.setBehaviour({ failStatus: 503 });
      for (let i = 0; i < 3; i++) expect(await chat(relays[0]!.url)).toBe(200);
      expect(primary.requests).toHaveLength(3);
      await sleep(300);
      for (let i = 0; i < 4; i++) expect(await chat(relays[1]!.url)).toBe(200);
      expect(primary.requests).toHaveLength(3);
    } finally {
      await Promise.all(relays.map((r) => r.stop()));
      await updateOption("ChannelBreakerCooldownSeconds", OPTIONS.ChannelBreakerCooldownSeconds);
    }
  });
});
