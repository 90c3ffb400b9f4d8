// Suno (channel type 36) through both relay entries against a Suno-API on loopback: submits billed
// exactly once at ModelPrice (user, key, channel, consume log), refusals never billed, retries,
// continuations pinned to the original channel, fetches of the caller's own rows, and the poller
// finishing tasks or failing them with exactly one refund (vendor failure, the hour's limit, a
// deleted channel, a relay killed between the charge and the vendor's answer).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { deleteChannel } from "@/lib/channels/manage";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { CHANNEL_GONE_REASON, pollTasksOnce, STALE_SUBMIT_REASON, TIMEOUT_REASON } from "@/lib/tasks/poller";
import { startRelayProcess } from "@/tests/helpers/process";
import { clearRelayData, ENTRIES, seedChannel, seedUser, startRelay, type RelayServer } from "@/tests/helpers/relay";
import { startSunoMock, SUNO_FAIL_REASON, type SunoMock } from "@/tests/mocks/suno";

const KEY = "suno-channel-key";
const MUSIC_QUOTA = 50_000n; // ModelPrice suno_music 0.1 × 500 000 × group ratio 1
const LYRICS_QUOTA = 5_000n; // suno_lyrics 0.01
const USER_QUOTA = 10_000_000n;
const KEY_QUOTA = 1_000_000n;
const ROOT_AUDIT = { actor: { id: 1, username: "root" }, ip: "127.0.0.1" };
const HOUR = 60 * 60_000;

type User = Awaited<ReturnType<typeof seedUser>>;

/** A user whose key has a limited balance, so the key's remain_quota is charged too. */
const seedPayer = (quota = USER_QUOTA) =>
  seedUser({ quota: Number(quota), token: { unlimited_quota: false, remain_quota: Number(KEY_QUOTA) } });

async function money(u: User) {
  const db = await getDb();
  const user = await db.user.findUniqueOrThrow({ where: { id: u.id } });
  const token = await db.token.findUniqueOrThrow({ where: { id: u.tokenId } });
  return { quota: user.quota, used: user.used_quota, keyLeft: token.remain_quota, keyUsed: token.used_quota };
}

const channelUsed = async (id: number) => (await (await getDb()).channel.findUniqueOrThrow({ where: { id } })).used_quota;
const taskRows = async (userId: number) => (await getDb()).task.findMany({ where: { user_id: userId }, orderBy: { id: "asc" } });
const logsOf = async (userId: number, type: number) =>
  (await getDb()).log.findMany({ where: { user_id: userId, type }, orderBy: { id: "asc" } });

/** An address where nothing listens. */
async function deadAddress(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

async function call(base: string, key: string, method: "GET" | "POST", path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, any>, requestId: res.headers.get("x-oneapi-request-id") };
}

const seedSunoChannel = (base_url: string, priority = 0) =>
  seedChannel({ type: 36, base_url, key: KEY, models: "suno_music,suno_lyrics", priority });

beforeEach(async () => {
  const db = await getDb();
  await db.task.deleteMany();
  await updateOption("RetryTimes", "0");
});

for (const entry of ENTRIES) {
  describe(`Suno through the ${entry} entry`, () => {
    let mock: SunoMock;
    let backup: SunoMock;
    let relay: RelayServer;
    let channelId: number;
    const submit = (u: User, action: string, body: unknown) => call(relay.url, u.key, "POST", `/suno/submit/${action}`, body);
    const submits = (m: SunoMock) => m.requests.filter((r) => r.path.startsWith("/suno/submit/"));

    beforeAll(async () => {
      mock = await startSunoMock(KEY);
      backup = await startSunoMock(KEY);
      relay = await startRelay(entry);
    });
    afterAll(async () => {
      await relay.close();
      await mock.close();
      await backup.close();
    });
    beforeEach(async () => {
      mock.reset();
      backup.reset();
      await clearRelayData();
      channelId = (await seedSunoChannel(mock.url)).id;
    });

    it("a song: Suno-API's submit with the channel key, billed once at suno_music's price to the user, the key and the channel, with its row", async () => {
      const u = await seedPayer();
      const body = { prompt: "[Verse]\nneon rain", tags: "synthwave", title: "Night", make_instrumental: false, negative_tags: "metal" };
      const res = await submit(u, "music", body);

      expect(res.status).toBe(200);
      const [sent] = submits(mock);
      expect(res.json).toEqual({ code: "success", message: "", data: [...mock.tasks.keys()][0] });
      expect(sent).toMatchObject({ method: "POST", path: "/suno/submit/MUSIC", authorization: `Bearer ${KEY}` });
      // Sent as the client wrote it (unknown fields too), with Suno-API's default model.
      expect(sent!.body).toEqual({ ...body, mv: "chirp-v3-0" });

      expect(await money(u)).toEqual({
        quota: USER_QUOTA - MUSIC_QUOTA,
        used: MUSIC_QUOTA,
        keyLeft: KEY_QUOTA - MUSIC_QUOTA,
        keyUsed: MUSIC_QUOTA,
      });
      expect(await channelUsed(channelId)).toBe(MUSIC_QUOTA);
      const [log, ...more] = await logsOf(u.id, 2);
      expect(more).toEqual([]);
      expect(log).toMatchObject({ model_name: "suno_music", quota: MUSIC_QUOTA, channel_id: channelId, token_id: u.tokenId });
      expect(log!.request_id).toBe(res.requestId);
      expect(log!.content).toContain(`操作 MUSIC，ID ${res.json.data}`);

      const [row, ...others] = await taskRows(u.id);
      expect(others).toEqual([]);
      expect(row).toMatchObject({
        task_id: res.json.data,
        platform: "suno",
        action: "MUSIC",
        status: "NOT_START",
        progress: "0%",
        channel_id: channelId,
        token_id: u.tokenId,
        quota: MUSIC_QUOTA,
        request_id: res.requestId,
      });
      expect(JSON.parse(row!.properties)).toEqual({ ...body, mv: "chirp-v3-0" });
      expect(Number(row!.submit_time)).toBeGreaterThan(Date.now() - 60_000); // milliseconds
    });

    it("lyrics: LYRICS upstream, billed at suno_lyrics's price", async () => {
      const u = await seedPayer();
      const res = await submit(u, "lyrics", { prompt: "a song about tea" });
      expect(res.status).toBe(200);
      expect(submits(mock)[0]).toMatchObject({ path: "/suno/submit/LYRICS", body: { prompt: "a song about tea" } });
      expect((await money(u)).quota).toBe(USER_QUOTA - LYRICS_QUOTA);
      expect((await money(u)).keyLeft).toBe(KEY_QUOTA - LYRICS_QUOTA);
      expect((await logsOf(u.id, 2)).map((l) => [l.model_name, l.quota])).toEqual([["suno_lyrics", LYRICS_QUOTA]]);
      expect((await taskRows(u.id)).map((r) => [r.action, r.task_id])).toEqual([["LYRICS", res.json.data]]);
    });

    it("requests that cannot be valid: Suno's error shape, nothing sent, charged or written", async () => {
      const u = await seedPayer();
      const cases: [string, unknown, string][] = [
        ["lyrics", { title: "no prompt" }, "prompt_empty"],
        ["video", { prompt: "x" }, "invalid_action"],
        ["music", { prompt: 42 }, "invalid_request"],
        ["music", { prompt: "x", continue_clip_id: "clip-1" }, "invalid_request"],
        ["music", [1, 2], "invalid_request"],
      ];
      for (const [action, body, code] of cases) {
        const res = await submit(u, action, body);
        expect(res.status, `${action} ${JSON.stringify(body)}`).toBe(400);
        expect(res.json).toEqual({ code, message: expect.any(String), data: null });
      }
      expect(mock.requests).toEqual([]);
      expect(await money(u)).toEqual({ quota: USER_QUOTA, used: 0n, keyLeft: KEY_QUOTA, keyUsed: 0n });
      expect(await taskRows(u.id)).toEqual([]);
    });

    it("a bad key is refused in Suno's shape", async () => {
      const res = await call(relay.url, `sk-${"x".repeat(48)}`, "POST", "/suno/submit/music", { prompt: "x" });
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ code: "invalid_api_key", message: expect.any(String), data: null });
      expect(mock.requests).toEqual([]);
    });

    it("not enough quota: 403 in Suno's shape, and nothing is sent or written", async () => {
      const poor = await seedUser({ quota: 1000, token: { unlimited_quota: false, remain_quota: Number(KEY_QUOTA) } });
      const res = await submit(poor, "music", { prompt: "x" });
      expect(res.status).toBe(403);
      expect(res.json).toEqual({ code: "insufficient_user_quota", message: expect.stringContaining("用户额度不足"), data: null });

      const thinKey = await seedUser({ token: { unlimited_quota: false, remain_quota: 10 } });
      const second = await submit(thinKey, "music", { prompt: "x" });
      expect(second.status).toBe(403);
      expect(second.json.code).toBe("insufficient_token_quota");

      expect(mock.requests).toEqual([]);
      expect((await money(poor)).quota).toBe(1000n);
      expect(await taskRows(poor.id)).toEqual([]);
      expect(await taskRows(thinKey.id)).toEqual([]);
      expect(await logsOf(poor.id, 2)).toEqual([]);
    });

    it("a vendor's 4xx: answered with its status and message, never retried, not billed, the row FAILURE", async () => {
      await updateOption("RetryTimes", "2");
      const backupId = (await seedSunoChannel(backup.url, -1)).id;
      mock.refuseSubmits = { status: 400, body: { code: "invalid_request", message: "tags too long", data: null } };
      const u = await seedPayer();
      const res = await submit(u, "music", { prompt: "x", tags: "t".repeat(300) });

      expect(res.status).toBe(400);
      expect(res.json).toEqual({ code: "fail_to_fetch_task", message: expect.stringContaining("tags too long"), data: null });
      expect(submits(mock)).toHaveLength(1);
      expect(backup.requests).toEqual([]);
      expect(await money(u)).toEqual({ quota: USER_QUOTA, used: 0n, keyLeft: KEY_QUOTA, keyUsed: 0n });
      expect(await channelUsed(channelId)).toBe(0n);
      expect(await channelUsed(backupId)).toBe(0n);
      expect(await logsOf(u.id, 2)).toEqual([]);
      expect(await logsOf(u.id, 4)).toEqual([]); // never billed: nothing to compensate
      const [row] = await taskRows(u.id);
      expect(row).toMatchObject({ status: "FAILURE", fail_reason: "tags too long", progress: "100%", task_id: "" });
    });

    it("a vendor that refuses the channel's key (401) disables the channel when automatic disabling is on", async () => {
      await updateOption("AutomaticDisableChannelEnabled", "true");
      try {
        await clearRelayData();
        const wrongKey = await seedChannel({ type: 36, base_url: mock.url, key: "not-the-key", models: "suno_music" });
        const u = await seedPayer();
        const res = await submit(u, "music", { prompt: "x" });
        expect(res.status).toBe(401);
        expect(res.json).toMatchObject({ code: "fail_to_fetch_task", message: expect.stringContaining("invalid api key") });
        expect((await money(u)).quota).toBe(USER_QUOTA);
        await expect.poll(async () => (await (await getDb()).channel.findUniqueOrThrow({ where: { id: wrongKey.id } })).status).toBe(3);
      } finally {
        await updateOption("AutomaticDisableChannelEnabled", "false");
      }
    });

    it("a vendor's 5xx without retries: answered with its status, not billed, the row FAILURE", async () => {
      mock.refuseSubmits = { status: 503, body: { code: "internal_error", message: "no account available", data: null } };
      const u = await seedPayer();
      const res = await submit(u, "music", { prompt: "x" });
      expect(res.status).toBe(503);
      expect(res.json).toMatchObject({ code: "fail_to_fetch_task", data: null });
      expect(await money(u)).toEqual({ quota: USER_QUOTA, used: 0n, keyLeft: KEY_QUOTA, keyUsed: 0n });
      expect((await taskRows(u.id)).map((r) => [r.status, r.fail_reason])).toEqual([["FAILURE", "no account available"]]);
    });

    it("a vendor's 5xx with RetryTimes 1: the next channel takes it, billed once there", async () => {
      await updateOption("RetryTimes", "1");
      // The failing channel is the higher tier, so it is asked first.
      await clearRelayData();
      channelId = (await seedSunoChannel(mock.url, 10)).id;
      const backupId = (await seedSunoChannel(backup.url, 0)).id;
      mock.refuseSubmits = { status: 500, body: { code: "internal_error", message: "upstream busy", data: null } };
      const u = await seedPayer();
      const res = await submit(u, "music", { prompt: "x" });

      expect(res.status).toBe(200);
      expect(submits(mock)).toHaveLength(1);
      expect(submits(backup)).toHaveLength(1);
      expect(res.json.data).toBe([...backup.tasks.keys()][0]);
      expect(await money(u)).toEqual({
        quota: USER_QUOTA - MUSIC_QUOTA,
        used: MUSIC_QUOTA,
        keyLeft: KEY_QUOTA - MUSIC_QUOTA,
        keyUsed: MUSIC_QUOTA,
      });
      expect(await channelUsed(channelId)).toBe(0n);
      expect(await channelUsed(backupId)).toBe(MUSIC_QUOTA);
      expect((await logsOf(u.id, 2)).map((l) => [l.channel_id, l.quota])).toEqual([[backupId, MUSIC_QUOTA]]);
      expect((await taskRows(u.id)).map((r) => [r.channel_id, r.status])).toEqual([[backupId, "NOT_START"]]);
    });

    it("a vendor that cannot be reached: answered without its address, not billed, the row FAILURE", async () => {
      await clearRelayData();
      const dead = await deadAddress();
      await seedSunoChannel(dead);
      const u = await seedPayer();
      const res = await submit(u, "music", { prompt: "x" });
      expect(res.status).toBe(500);
      expect(res.json.message).toContain("请求上游地址失败");
      expect(JSON.stringify(res.json)).not.toContain(dead.split(":").pop()!);
      expect(await money(u)).toEqual({ quota: USER_QUOTA, used: 0n, keyLeft: KEY_QUOTA, keyUsed: 0n });
      expect((await taskRows(u.id)).map((r) => r.status)).toEqual(["FAILURE"]);
    });

    it("a continuation goes to the original task's channel; another user's task is refused", async () => {
      const u = await seedPayer();
      const first = await submit(u, "music", { prompt: "[Verse] one" });
      const original = first.json.data as string;
      // A better channel appears: a new song would go there, the continuation must not.
      const betterId = (await seedSunoChannel(backup.url, 10)).id;

      const cont = await submit(u, "music", {
        prompt: "[Verse] two",
        continue_clip_id: `${original}-clip1`,
        continue_at: 60,
        task_id: original,
      });
      expect(cont.status).toBe(200);
      expect(submits(backup)).toEqual([]);
      expect(submits(mock)[1]!.body).toMatchObject({ continue_clip_id: `${original}-clip1`, continue_at: 60, task_id: original });
      const rows = await taskRows(u.id);
      expect(rows.map((r) => r.channel_id)).toEqual([channelId, channelId]);
      expect(await channelUsed(betterId)).toBe(0n);

      const other = await seedPayer();
      const stolen = await submit(other, "music", { prompt: "x", continue_clip_id: `${original}-clip1`, task_id: original });
      expect(stolen.status).toBe(400);
      expect(stolen.json).toEqual({ code: "task_not_exist", message: expect.any(String), data: null });
      expect(submits(mock)).toHaveLength(2);
      expect(await money(other)).toEqual({ quota: USER_QUOTA, used: 0n, keyLeft: KEY_QUOTA, keyUsed: 0n });
      expect(await taskRows(other.id)).toEqual([]);
    });

    it("fetch and fetch by id answer the caller's own rows from the database, in new-api's task DTO", async () => {
      const u = await seedPayer();
      const song = (await submit(u, "music", { prompt: "a" })).json.data as string;
      const words = (await submit(u, "lyrics", { prompt: "b" })).json.data as string;
      const other = await seedPayer();
      const theirs = (await submit(other, "music", { prompt: "c" })).json.data as string;
      const vendorCalls = mock.requests.length;

      const list = await call(relay.url, u.key, "POST", "/suno/fetch", { ids: [song, words, theirs, "nope"] });
      expect(list.status).toBe(200);
      expect(list.json.code).toBe("success");
      expect(list.json.data.map((t: { task_id: string }) => t.task_id)).toEqual([song, words]);
      const [dto] = list.json.data;
      expect(dto).toMatchObject({
        task_id: song,
        platform: "suno",
        action: "MUSIC",
        status: "NOT_START",
        progress: "0%",
        fail_reason: "",
        quota: Number(MUSIC_QUOTA),
        properties: { prompt: "a", mv: "chirp-v3-0" },
        data: null,
      });
      expect(Math.abs(dto.submit_time - Date.now() / 1000)).toBeLessThan(120); // seconds, as new-api answers
      expect(dto).not.toHaveProperty("channel_id");

      const lyricsOnly = await call(relay.url, u.key, "POST", "/suno/fetch", { ids: [song, words], action: "LYRICS" });
      expect(lyricsOnly.json.data.map((t: { task_id: string }) => t.task_id)).toEqual([words]);
      expect((await call(relay.url, u.key, "POST", "/suno/fetch", { ids: [] })).json).toEqual({ code: "success", message: "", data: [] });

      const one = await call(relay.url, u.key, "GET", `/suno/fetch/${song}`);
      expect(one.json).toMatchObject({ code: "success", data: { task_id: song, action: "MUSIC" } });
      const notMine = await call(relay.url, u.key, "GET", `/suno/fetch/${theirs}`);
      expect(notMine.status).toBe(400);
      expect(notMine.json).toEqual({ code: "task_not_exist", message: expect.any(String), data: null });

      expect(mock.requests).toHaveLength(vendorCalls); // the vendor is never asked
    });

    it("polls move a song to SUCCESS with its clips stored, and a finished task is not asked about again", async () => {
      const u = await seedPayer();
      const id = (await submit(u, "music", { prompt: "[Verse] sun", title: "Sun" })).json.data as string;
      const row = async () => (await getDb()).task.findFirstOrThrow({ where: { task_id: id } });

      await pollTasksOnce();
      expect((await row()).status).toBe("SUBMITTED");
      await pollTasksOnce();
      const running = await row();
      expect(running).toMatchObject({ status: "IN_PROGRESS", progress: "50%" });
      expect(Number(running.start_time)).toBeGreaterThan(Date.now() - 60_000); // seconds from the vendor, stored as ms
      await pollTasksOnce();
      const done = await row();
      expect(done).toMatchObject({ status: "SUCCESS", progress: "100%", fail_reason: "" });
      expect(Number(done.finish_time)).toBeGreaterThanOrEqual(Number(done.start_time));
      const clips = JSON.parse(done.data);
      expect(clips.map((c: { audio_url: string }) => c.audio_url)).toEqual([
        `https://cdn1.suno.ai/${id}-clip1.mp3`,
        `https://cdn1.suno.ai/${id}-clip2.mp3`,
      ]);

      const fetches = mock.requests.filter((r) => r.path === "/suno/fetch").length;
      expect(mock.requests.filter((r) => r.path === "/suno/fetch").every((r) => r.authorization === `Bearer ${KEY}`)).toBe(true);
      await pollTasksOnce();
      expect(mock.requests.filter((r) => r.path === "/suno/fetch")).toHaveLength(fetches);
      const seen = await call(relay.url, u.key, "GET", `/suno/fetch/${id}`);
      expect(seen.json.data).toMatchObject({ status: "SUCCESS", progress: "100%", data: clips });
      expect((await money(u)).quota).toBe(USER_QUOTA - MUSIC_QUOTA);
    });

    it("a task Suno fails is refunded to the user and the key exactly once, with one 异步任务执行失败 log row", async () => {
      const u = await seedPayer();
      const id = (await submit(u, "music", { prompt: "FAIL in the style of someone famous" })).json.data as string;
      await pollTasksOnce();
      await pollTasksOnce();
      expect((await money(u)).quota).toBe(USER_QUOTA - MUSIC_QUOTA);
      // The round that sees the failure, three times at once, then again.
      await Promise.all([pollTasksOnce(), pollTasksOnce(), pollTasksOnce()]);
      await pollTasksOnce();

      expect(await money(u)).toEqual({ quota: USER_QUOTA, used: 0n, keyLeft: KEY_QUOTA, keyUsed: 0n });
      expect(await channelUsed(channelId)).toBe(0n);
      const refunds = await logsOf(u.id, 4);
      expect(refunds.map((l) => [l.content, l.quota])).toEqual([
        [`异步任务执行失败 ${SUNO_FAIL_REASON}，补偿 ${MUSIC_QUOTA}`, MUSIC_QUOTA],
      ]);
      const row = await (await getDb()).task.findFirstOrThrow({ where: { task_id: id } });
      expect(row).toMatchObject({ status: "FAILURE", progress: "100%", fail_reason: SUNO_FAIL_REASON });
      expect(JSON.parse(row.data)[0].status).toBe("error");
      const seen = await call(relay.url, u.key, "GET", `/suno/fetch/${id}`);
      expect(seen.json.data).toMatchObject({ status: "FAILURE", fail_reason: SUNO_FAIL_REASON });
    });

    it("a task still open an hour after its submit is failed and refunded once", async () => {
      const u = await seedPayer();
      const id = (await submit(u, "music", { prompt: "slow" })).json.data as string;
      const later = Date.now() + HOUR + 60_000;
      await pollTasksOnce(later);
      await pollTasksOnce(later);
      expect(await money(u)).toEqual({ quota: USER_QUOTA, used: 0n, keyLeft: KEY_QUOTA, keyUsed: 0n });
      expect((await logsOf(u.id, 4)).map((l) => l.content)).toEqual([`异步任务执行失败 ${TIMEOUT_REASON}，补偿 ${MUSIC_QUOTA}`]);
      await expect((await getDb()).task.findFirstOrThrow({ where: { task_id: id } })).resolves.toMatchObject({
        status: "FAILURE",
        fail_reason: TIMEOUT_REASON,
      });
      expect(mock.requests.filter((r) => r.path === "/suno/fetch")).toEqual([]);
    });

    it("a task whose channel was deleted is failed and refunded once", async () => {
      const u = await seedPayer();
      const id = (await submit(u, "music", { prompt: "orphan" })).json.data as string;
      await deleteChannel(channelId, ROOT_AUDIT);
      await pollTasksOnce();
      await pollTasksOnce();
      expect(await money(u)).toEqual({ quota: USER_QUOTA, used: 0n, keyLeft: KEY_QUOTA, keyUsed: 0n });
      expect((await logsOf(u.id, 4)).map((l) => l.content)).toEqual([`异步任务执行失败 ${CHANNEL_GONE_REASON}，补偿 ${MUSIC_QUOTA}`]);
      await expect((await getDb()).task.findFirstOrThrow({ where: { task_id: id } })).resolves.toMatchObject({
        status: "FAILURE",
        fail_reason: CHANNEL_GONE_REASON,
      });
    });

    it("a fetch the vendor refuses leaves the tasks as they were for the next round", async () => {
      const u = await seedPayer();
      const id = (await submit(u, "music", { prompt: "patience" })).json.data as string;
      mock.refuseFetches = { status: 500, body: { code: "internal_error", message: "db down", data: null } };
      await pollTasksOnce();
      const row = await (await getDb()).task.findFirstOrThrow({ where: { task_id: id } });
      expect(row).toMatchObject({ status: "NOT_START", progress: "0%" });
      mock.refuseFetches = null;
      await pollTasksOnce();
      expect((await (await getDb()).task.findFirstOrThrow({ where: { task_id: id } })).status).toBe("SUBMITTED");
      expect((await money(u)).quota).toBe(USER_QUOTA - MUSIC_QUOTA);
    });
  });
}

describe("a relay killed between charging a Suno submit and the vendor's answer", () => {
  let mock: SunoMock;
  beforeAll(async () => {
    mock = await startSunoMock(KEY);
  });
  afterAll(async () => {
    await mock.close();
  });

  it("leaves a charged row that the poller refunds once, after the submit's grace period", async () => {
    await clearRelayData();
    const channel = await seedSunoChannel(mock.url);
    const u = await seedPayer();
    mock.hangSubmits = true;
    const relay = await startRelayProcess({});
    const pending = call(relay.url, u.key, "POST", "/suno/submit/music", { prompt: "never answered" }).catch(() => null);
    await expect.poll(() => mock.requests.length, { timeout: 10_000 }).toBe(1);

    // Charged and written before the vendor was asked.
    expect(await money(u)).toEqual({
      quota: USER_QUOTA - MUSIC_QUOTA,
      used: MUSIC_QUOTA,
      keyLeft: KEY_QUOTA - MUSIC_QUOTA,
      keyUsed: MUSIC_QUOTA,
    });
    const [charged] = await taskRows(u.id);
    expect(charged).toMatchObject({ status: "", task_id: "", quota: MUSIC_QUOTA });

    await relay.kill();
    await pending;
    // Within the grace period the row may still be answered: it is left alone.
    await pollTasksOnce();
    expect((await taskRows(u.id))[0]!.status).toBe("");

    await pollTasksOnce(Date.now() + 11 * 60_000);
    const after = await money(u);
    expect(after).toEqual({ quota: USER_QUOTA, used: 0n, keyLeft: KEY_QUOTA, keyUsed: 0n });
    const [refunded] = await taskRows(u.id);
    expect(refunded).toMatchObject({ status: "FAILURE", fail_reason: STALE_SUBMIT_REASON, progress: "100%" });
    expect((await logsOf(u.id, 4)).map((l) => l.content)).toEqual([`异步任务执行失败 ${STALE_SUBMIT_REASON}，补偿 ${MUSIC_QUOTA}`]);
    expect(await channelUsed(channel.id)).toBe(0n);
    expect(await logsOf(u.id, 2)).toEqual([]);

    await pollTasksOnce(Date.now() + 11 * 60_000);
    expect(await money(u)).toEqual(after);
    expect(await taskRows(u.id)).toEqual([refunded]);
    expect(await logsOf(u.id, 4)).toHaveLength(1);
  });
});
