// Midjourney through both relay entries, against a midjourney-proxy on loopback
// (tests/mocks/midjourney.ts): every submit path and its price, the key in either header, the
// proxy's answer codes, follow-ups on the original channel, the Mj* options, the read routes and
// the image proxy; then the poller (lib/tasks/poller.ts) moving tasks to success, failure and
// timeout, each failure refunded to the user and the key exactly once.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { publishInvalidation } from "@/lib/cache/bus";
import { CHANNEL_CATALOG } from "@/lib/channels/catalog";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { FETCH_URL_MSG } from "@/lib/net/fetch-url";
import { pollTasksOnce, TIMEOUT_REASON } from "@/lib/tasks/poller";
import { type MidjourneyMock, PNG, startMidjourneyMock } from "@/tests/mocks/midjourney";
import { clearRelayData, ENTRIES, type RelayServer, seedChannel, seedUser, startRelay } from "@/tests/helpers/relay";
import { describeOnEveryDatabase, race } from "@/tests/helpers/instance-process";

const MJ_MODELS = CHANNEL_CATALOG[2].models.join(",");
/** ModelPrice defaults × 500 000. */
const PRICE = { tenth: 50_000n, twentieth: 25_000n } as const;

type User = Awaited<ReturnType<typeof seedUser>>;
type Answer = { status: number; json: any; headers: Headers };

const db = () => getDb();
const rowsOf = async (userId: number) => (await db()).midjourney.findMany({ where: { user_id: userId }, orderBy: { id: "asc" } });
const rowOf = async (mjId: string) => (await db()).midjourney.findFirstOrThrow({ where: { mj_id: mjId } });
const consumeLogs = async (userId: number) => (await db()).log.findMany({ where: { user_id: userId, type: 2 }, orderBy: { id: "asc" } });
const tokenOf = async (id: number) => (await db()).token.findUniqueOrThrow({ where: { id } });
const userRow = async (id: number) => (await db()).user.findUniqueOrThrow({ where: { id } });

/** A user whose key has its own limit, so refunds to the key show. */
const seedLimitedUser = (quota = 10_000_000, keyQuota = 1_000_000) =>
  seedUser({ quota, token: { unlimited_quota: false, remain_quota: keyQuota } });

async function pollUntil(mjId: string, status: string) {
  for (let i = 0; i < 5; i++) {
    await pollTasksOnce();
    if ((await rowOf(mjId)).status === status) return;
  }
  throw new Error(`task ${mjId} never reached ${status}`);
}

async function resetOptions() {
  for (const [key, value] of Object.entries({
    MjNotifyEnabled: "false",
    MjAccountFilterEnabled: "false",
    MjModeClearEnabled: "false",
    MjForwardUrlEnabled: "true",
    MjActionCheckSuccessEnabled: "true",
    AutomaticDisableChannelEnabled: "false",
    RetryTimes: "0",
    WorkerUrl: "",
    ServerAddress: "https://qiao.example.com/",
  })) {
    await updateOption(key, value);
  }
}

let mj: MidjourneyMock;
let other: MidjourneyMock;

beforeAll(async () => {
  mj = await startMidjourneyMock("mj-secret-a");
  other = await startMidjourneyMock("mj-secret-b");
});
afterAll(async () => {
  await mj.close();
  await other.close();
});

async function resetWorld() {
  mj.reset();
  other.reset();
  await clearRelayData();
  await (await db()).midjourney.deleteMany();
  await resetOptions();
  return seedChannel({ type: 2, base_url: mj.url, key: mj.secret, models: MJ_MODELS });
}

for (const entry of ENTRIES) {
  describe(`Midjourney through the ${entry} entry`, () => {
    let relay: RelayServer;
    let channelId: number;

    async function call(method: "GET" | "POST", path: string, key: string | null, body?: unknown, headers: Record<string, string> = {}) {
      const res = await fetch(`${relay.url}${path}`, {
        method,
        headers: {
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(body ? { "content-type": "application/json" } : {}),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      let json: unknown = text;
      try {
        json = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      return { status: res.status, json, headers: res.headers } as Answer;
    }
    const post = (path: string, key: string | null, body: unknown, headers?: Record<string, string>) =>
      call("POST", path, key, body, headers);

    /** Submits an imagine and polls it to SUCCESS; its proxy id. */
    async function finishedImagine(u: User, prompt = "a red fox") {
      const res = await post("/mj/submit/imagine", u.key, { prompt });
      expect(res.json.code).toBe(1);
      await pollUntil(res.json.result, "SUCCESS");
      return res.json.result as string;
    }

    beforeAll(async () => {
      relay = await startRelay(entry);
    });
    afterAll(async () => {
      await relay.close();
    });
    beforeEach(async () => {
      channelId = (await resetWorld()).id;
    });

    it("submits every action to the proxy's path with the client's body, billing each its price once", async () => {
      const u = await seedLimitedUser();
      const before = await u.quota();
      const imagine = await post("/mj/submit/imagine", u.key, { prompt: "a red fox", base64Array: [], state: "s1" });
      expect(imagine.status).toBe(200);
      expect(imagine.json).toMatchObject({ code: 1, description: "提交成功", properties: { discordInstanceId: "1118138338562560102" } });
      expect(imagine.headers.get("content-type")).toContain("application/json");
      const fox = imagine.json.result as string;
      expect(mj.submits()[0]).toMatchObject({
        method: "POST",
        path: "/mj/submit/imagine",
        body: { prompt: "a red fox", base64Array: [], state: "s1" },
      });
      expect(mj.submits()[0]!.headers["mj-api-secret"]).toBe(mj.secret);
      await pollUntil(fox, "SUCCESS");

      // New tasks, then follow-ups on the finished imagine (and an inpaint waiting for its modal).
      const cases: { path: string; body: Record<string, unknown>; model: string; quota: bigint; action: string }[] = [
        {
          path: "/mj/submit/describe",
          body: { base64: "data:image/png;base64,AAAA" },
          model: "mj_describe",
          quota: PRICE.twentieth,
          action: "DESCRIBE",
        },
        {
          path: "/mj/submit/blend",
          body: { base64Array: ["data:image/png;base64,AA", "data:image/png;base64,BB"], dimensions: "SQUARE" },
          model: "mj_blend",
          quota: PRICE.tenth,
          action: "BLEND",
        },
        {
          path: "/mj/submit/shorten",
          body: { prompt: "a very long prompt about foxes" },
          model: "mj_shorten",
          quota: PRICE.tenth,
          action: "SHORTEN",
        },
        {
          path: "/mj/insight-face/swap",
          body: { sourceBase64: "data:image/png;base64,SS", targetBase64: "data:image/png;base64,TT" },
          model: "swap_face",
          quota: PRICE.twentieth,
          action: "SWAP_FACE",
        },
        {
          path: "/mj/submit/change",
          body: { taskId: fox, action: "UPSCALE", index: 1 },
          model: "mj_upscale",
          quota: PRICE.twentieth,
          action: "UPSCALE",
        },
        {
          path: "/mj/submit/simple-change",
          body: { content: `${fox} V2` },
          model: "mj_variation",
          quota: PRICE.tenth,
          action: "VARIATION",
        },
        {
          path: "/mj/submit/action",
          body: { taskId: fox, customId: `MJ::JOB::reroll::0::hash-${fox}::SOLO` },
          model: "mj_reroll",
          quota: PRICE.tenth,
          action: "REROLL",
        },
        {
          path: "/mj/submit/action",
          body: { taskId: fox, customId: "MJ::JOB::upsample::3::h" },
          model: "mj_upscale",
          quota: PRICE.twentieth,
          action: "UPSCALE",
        },
        {
          path: "/mj/submit/action",
          body: { taskId: fox, customId: "MJ::JOB::variation::4::h" },
          model: "mj_variation",
          quota: PRICE.tenth,
          action: "VARIATION",
        },
        {
          path: "/mj/submit/action",
          body: { taskId: fox, customId: "MJ::JOB::low_variation::1::h::SOLO" },
          model: "mj_low_variation",
          quota: PRICE.tenth,
          action: "LOW_VARIATION",
        },
        {
          path: "/mj/submit/action",
          body: { taskId: fox, customId: "MJ::JOB::high_variation::1::h::SOLO" },
          model: "mj_high_variation",
          quota: PRICE.tenth,
          action: "HIGH_VARIATION",
        },
        {
          path: "/mj/submit/action",
          body: { taskId: fox, customId: "MJ::JOB::pan_left::1::h::SOLO" },
          model: "mj_pan",
          quota: PRICE.tenth,
          action: "PAN",
        },
        {
          path: "/mj/submit/action",
          body: { taskId: fox, customId: "MJ::Outpaint::50::1::h::SOLO" },
          model: "mj_zoom",
          quota: PRICE.tenth,
          action: "ZOOM",
        },
      ];
      for (const c of cases) {
        const res = await post(c.path, u.key, c.body);
        expect(res.json, c.path).toMatchObject({ code: 1, description: "提交成功" });
        const sent = mj.submits().at(-1)!;
        expect(sent.path, c.model).toBe(c.path);
        expect(sent.body, c.model).toEqual(c.body);
        const row = await rowOf(res.json.result);
        expect(row, c.model).toMatchObject({
          user_id: u.id,
          action: c.action,
          code: 1,
          status: "SUBMITTED",
          progress: "0%",
          quota: c.quota,
          channel_id: channelId,
          token_id: u.tokenId,
        });
        if (c.path.includes("change") || c.path.includes("action")) expect(row.prompt).toBe("a red fox");
        if (c.model === "swap_face") expect(row.prompt).toBe("InsightFace");
      }

      // An inpaint is free and answered 21 ("now call modal"); the modal completing it is billed.
      mj.forced.push({ code: 21, description: "窗口等待", properties: { status: "MODAL", finalPrompt: "a red fox" } });
      const inpaint = await post("/mj/submit/action", u.key, { taskId: fox, customId: "MJ::Inpaint::1::h::SOLO" });
      expect(inpaint.json).toMatchObject({ code: 21, description: "窗口等待" });
      expect(await rowOf(inpaint.json.result)).toMatchObject({ action: "INPAINT", code: 21, status: "MODAL", quota: 0n });
      const modal = await post("/mj/submit/modal", u.key, {
        taskId: inpaint.json.result,
        maskBase64: "data:image/png;base64,MM",
        prompt: "a hat",
      });
      expect(modal.json.code).toBe(1);
      expect(mj.submits().at(-1)).toMatchObject({
        path: "/mj/submit/modal",
        body: { taskId: inpaint.json.result, maskBase64: "data:image/png;base64,MM", prompt: "a hat" },
      });
      expect(await rowOf(modal.json.result)).toMatchObject({ action: "MODAL", quota: PRICE.tenth, prompt: "a red fox" });

      // An upload is done when answered: its result is the list of image addresses.
      const upload = await post("/mj/submit/upload-discord-images", u.key, { base64Array: ["data:image/png;base64,UU"] });
      expect(upload.json.code).toBe(1);
      expect(upload.json.result).toEqual([expect.stringMatching(/\/images\/upload-\d+\.png$/)]);
      const uploadRow = (await rowsOf(u.id)).at(-1)!;
      expect(uploadRow).toMatchObject({
        action: "UPLOAD",
        status: "SUCCESS",
        progress: "100%",
        image_url: upload.json.result[0],
        quota: PRICE.twentieth,
      });

      const models = ["mj_imagine", ...cases.map((c) => c.model), "mj_inpaint", "mj_modal", "mj_upload"];
      const quotas = [PRICE.tenth, ...cases.map((c) => c.quota), 0n, PRICE.tenth, PRICE.twentieth];
      const logs = await consumeLogs(u.id);
      expect(logs.map((l) => l.model_name)).toEqual(models);
      expect(logs.map((l) => l.quota)).toEqual(quotas);
      expect(logs[0]!.content).toBe(`模型价格 0.1，分组倍率 1，操作 IMAGINE，ID ${fox}`);
      expect(logs[0]).toMatchObject({ channel_id: channelId, token_id: u.tokenId });
      const total = quotas.reduce((a, b) => a + b, 0n);
      expect(before - (await u.quota())).toBe(total);
      expect(await tokenOf(u.tokenId)).toMatchObject({ remain_quota: 1_000_000n - total, used_quota: total });
      expect(await userRow(u.id)).toMatchObject({ used_quota: total, request_count: models.length });
      expect((await (await db()).channel.findUniqueOrThrow({ where: { id: channelId } })).used_quota).toBe(total);
    });

    it("takes the key in mj-api-secret too (Authorization may hold the placeholder), and refuses a bad key in Midjourney's shape", async () => {
      const u = await seedUser();
      const bySecret = await post("/mj/submit/imagine", null, { prompt: "cat" }, { "mj-api-secret": u.key });
      expect(bySecret.json.code).toBe(1);
      const placeholder = await post(
        "/mj/submit/imagine",
        null,
        { prompt: "cat" },
        { authorization: "midjourney-proxy", "mj-api-secret": u.key },
      );
      expect(placeholder.json.code).toBe(1);
      expect(await consumeLogs(u.id)).toHaveLength(2);

      const bad = await post("/mj/submit/imagine", "sk-0123456789abcdef0123456789abcdef0123456789abcdef", { prompt: "cat" });
      expect(bad.status).toBe(401);
      expect(bad.json).toEqual({
        description: expect.stringMatching(/^无效的令牌 sk-0123\*\*\*\*cdef \(request id: \w+\)$/),
        type: "new_api_error",
        code: 4,
      });
      const none = await call("GET", `/mj/task/${bySecret.json.result}/fetch`, null);
      expect(none.status).toBe(401);
      expect(none.json).toMatchObject({ description: expect.stringContaining("未提供令牌"), code: 4 });
      expect(mj.submits()).toHaveLength(2);
    });

    it("refuses a body it cannot read before anything is charged", async () => {
      const u = await seedUser();
      const before = await u.quota();
      for (const [path, body, message] of [
        ["/mj/submit/imagine", { prompt: "" }, "prompt 不能为空"],
        ["/mj/insight-face/swap", { sourceBase64: "x" }, "sourceBase64 和 targetBase64 不能为空"],
        ["/mj/submit/change", { taskId: "1", action: "ZOOM", index: 1 }, "action 只能是 UPSCALE、VARIATION 或 REROLL"],
        ["/mj/submit/simple-change", { content: "123 U5" }, "content 格式应为「任务ID U1~U4|V1~V4|R」"],
        ["/mj/submit/action", { taskId: "1", customId: "MJ::JOB::dance::1::h" }, "未知的操作：MJ::JOB::dance::1::h"],
        ["/mj/submit/modal", { prompt: "x" }, "缺少 taskId（原任务 ID）"],
      ] as const) {
        const res = await post(path, u.key, body);
        expect(res.status, path).toBe(400);
        expect(res.json, path).toMatchObject({ description: expect.stringContaining(message), code: 4 });
      }
      const unknown = await post("/mj/submit/dance", u.key, {});
      expect(unknown.status).toBe(404);
      expect(unknown.json).toMatchObject({ description: expect.stringContaining("Invalid URL (POST /mj/submit/dance)"), code: 4 });
      expect(mj.submits()).toHaveLength(0);
      expect(await u.quota()).toBe(before);
      expect(await rowsOf(u.id)).toHaveLength(0);
    });

    it("code 21 of a finished task: answered 1, the row finished at once, billed", async () => {
      const u = await seedUser();
      const before = await u.quota();
      mj.forced.push({
        code: 21,
        description: "任务已存在",
        result: "7419000000000001",
        properties: { status: "SUCCESS", imageUrl: "https://cdn.example.com/x.png" },
      });
      const res = await post("/mj/submit/imagine", u.key, { prompt: "cat" });
      expect(res.json).toEqual({
        code: 1,
        description: "任务已存在",
        result: "7419000000000001",
        properties: { status: "SUCCESS", imageUrl: "https://cdn.example.com/x.png" },
      });
      const row = await rowOf("7419000000000001");
      expect(row).toMatchObject({
        code: 1,
        status: "SUCCESS",
        progress: "100%",
        image_url: "https://cdn.example.com/x.png",
        quota: PRICE.tenth,
      });
      expect(row.finish_time).toBeGreaterThan(0n);
      expect(before - (await u.quota())).toBe(PRICE.tenth);
    });

    it("code 22 (queued): answered 1, stored as 22, billed", async () => {
      const u = await seedUser();
      const before = await u.quota();
      mj.forced.push({ code: 22, description: "排队中，前面还有1个任务", properties: { numberOfQueues: 1 } });
      const res = await post("/mj/submit/imagine", u.key, { prompt: "cat" });
      expect(res.json).toMatchObject({ code: 1, description: "排队中，前面还有1个任务" });
      expect(await rowOf(res.json.result)).toMatchObject({ code: 22, status: "SUBMITTED", quota: PRICE.tenth });
      expect(before - (await u.quota())).toBe(PRICE.tenth);
    });

    it("codes 23 and 24: the proxy's answer passed on, nothing billed, the row failed with its description", async () => {
      const u = await seedLimitedUser();
      const before = await u.quota();
      mj.forced.push(
        { code: 23, description: "队列已满，请稍后尝试", result: "14001929738841620", createTask: false },
        { code: 24, description: "可能包含敏感词", properties: { promptEn: "nude body", bannedWord: "nude" }, createTask: false },
      );
      const full = await post("/mj/submit/imagine", u.key, { prompt: "cat" });
      expect(full.status).toBe(200);
      expect(full.json).toMatchObject({ code: 23, description: "队列已满，请稍后尝试" });
      const banned = await post("/mj/submit/imagine", u.key, { prompt: "nude body" });
      expect(banned.json).toMatchObject({ code: 24, description: "可能包含敏感词", properties: { bannedWord: "nude" } });
      const rows = await rowsOf(u.id);
      expect(rows.map((r) => [r.status, r.code, r.fail_reason, r.progress])).toEqual([
        ["FAILURE", 23, "队列已满，请稍后尝试", "100%"],
        ["FAILURE", 24, "可能包含敏感词", "100%"],
      ]);
      expect(await u.quota()).toBe(before);
      expect(await tokenOf(u.tokenId)).toMatchObject({ remain_quota: 1_000_000n, used_quota: 0n });
      expect(await consumeLogs(u.id)).toHaveLength(0);
    });

    it("code 3 (no account instance): not billed, and the channel auto-disabled when allowed", async () => {
      await updateOption("AutomaticDisableChannelEnabled", "true");
      const u = await seedUser();
      const before = await u.quota();
      mj.forced.push({ code: 3, description: "无可用的账号实例", createTask: false });
      const res = await post("/mj/submit/imagine", u.key, { prompt: "cat" });
      expect(res.json).toMatchObject({ code: 3, description: "无可用的账号实例" });
      expect(await u.quota()).toBe(before);
      expect((await rowsOf(u.id))[0]).toMatchObject({ status: "FAILURE", fail_reason: "无可用的账号实例" });
      await vi.waitFor(async () => expect((await (await db()).channel.findUniqueOrThrow({ where: { id: channelId } })).status).toBe(3));
      const next = await post("/mj/submit/imagine", u.key, { prompt: "cat" });
      expect(next.status).toBe(404);
      expect(next.json).toMatchObject({ description: expect.stringContaining("无可用渠道"), code: 4 });
    });

    it("an HTTP 500 is not billed; with retries on, another channel takes the task and bills it once", async () => {
      const u = await seedUser();
      const before = await u.quota();
      mj.forced.push({ http: 500, body: '{"code":5,"description":"Internal Server Error"}' });
      const failed = await post("/mj/submit/imagine", u.key, { prompt: "cat" });
      expect(failed.status).toBe(500);
      expect(failed.json).toEqual({ code: 5, description: "Internal Server Error" });
      expect(await u.quota()).toBe(before);
      expect((await rowsOf(u.id))[0]).toMatchObject({ status: "FAILURE", fail_reason: "Internal Server Error" });

      // A proxy that does not answer at all: Midjourney's error shape, code 5.
      const gone = await seedChannel({ type: 5, base_url: "http://127.0.0.1:9", key: "k", models: MJ_MODELS, priority: 10 });
      const unreachable = await post("/mj/submit/imagine", u.key, { prompt: "cat" });
      expect(unreachable.status).toBe(502);
      expect(unreachable.json).toMatchObject({ type: "upstream_error", code: 5 });
      expect((await rowsOf(u.id))[1]).toMatchObject({ status: "FAILURE", channel_id: gone.id });

      await updateOption("RetryTimes", "1");
      const retried = await post("/mj/submit/imagine", u.key, { prompt: "cat" });
      expect(retried.json.code).toBe(1);
      expect(await rowOf(retried.json.result)).toMatchObject({ status: "SUBMITTED", channel_id: channelId });
      expect(before - (await u.quota())).toBe(PRICE.tenth);
      expect(await consumeLogs(u.id)).toHaveLength(1);
    });

    it("a follow-up goes to the original task's channel and only to the caller's own task", async () => {
      const u = await seedUser();
      const fox = await finishedImagine(u);
      // A channel that would now win the routing: the follow-up still goes where the task is.
      const second = await seedChannel({ type: 5, base_url: other.url, key: other.secret, models: MJ_MODELS, priority: 10 });
      const up = await post("/mj/submit/change", u.key, { taskId: fox, action: "UPSCALE", index: 2 });
      expect(up.json.code).toBe(1);
      expect(await rowOf(up.json.result)).toMatchObject({ channel_id: channelId });
      expect(other.submits()).toHaveLength(0);
      const fresh = await post("/mj/submit/imagine", u.key, { prompt: "new" });
      expect(await rowOf(fresh.json.result)).toMatchObject({ channel_id: second.id });

      const stranger = await seedUser();
      const before = await stranger.quota();
      const refused = await post("/mj/submit/change", stranger.key, { taskId: fox, action: "UPSCALE", index: 1 });
      expect(refused.status).toBe(404);
      expect(refused.json).toMatchObject({ description: expect.stringContaining(`任务不存在：${fox}`), code: 4 });
      expect(await stranger.quota()).toBe(before);
      expect(await rowsOf(stranger.id)).toHaveLength(0);

      // The original channel disabled: the follow-up is refused, not sent elsewhere.
      await (await db()).channel.update({ where: { id: channelId }, data: { status: 2 } });
      publishInvalidation({ kind: "channels" });
      const disabled = await post("/mj/submit/simple-change", u.key, { content: `${fox} U1` });
      expect(disabled.status).toBe(403);
      expect(disabled.json).toMatchObject({ description: expect.stringContaining("该渠道已被禁用") });
    });

    it("MjActionCheckSuccessEnabled: a follow-up needs the original finished (a modal does not); off, it does not", async () => {
      const u = await seedUser();
      const running = await post("/mj/submit/imagine", u.key, { prompt: "cat" });
      const id = running.json.result as string;
      const refused = await post("/mj/submit/change", u.key, { taskId: id, action: "VARIATION", index: 1 });
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({ description: expect.stringContaining("原任务尚未成功（SUBMITTED）"), code: 4 });
      const modal = await post("/mj/submit/modal", u.key, { taskId: id, prompt: "x" });
      expect(modal.json.code).toBe(1);
      await updateOption("MjActionCheckSuccessEnabled", "false");
      const allowed = await post("/mj/submit/change", u.key, { taskId: id, action: "VARIATION", index: 1 });
      expect(allowed.json.code).toBe(1);
      expect((await consumeLogs(u.id)).map((l) => l.model_name)).toEqual(["mj_imagine", "mj_modal", "mj_variation"]);
    });

    it("withholds notifyHook and accountFilter unless allowed, and clears the mode flags when asked", async () => {
      const u = await seedUser();
      const body = {
        prompt: "a cat --fast --relax --turbo",
        notifyHook: "https://client.example.com/hook",
        accountFilter: { modes: ["FAST"] },
      };
      await post("/mj/submit/imagine", u.key, body);
      expect(mj.submits().at(-1)!.body).toEqual({ prompt: "a cat --fast --relax --turbo" });

      await updateOption("MjNotifyEnabled", "true");
      await updateOption("MjAccountFilterEnabled", "true");
      await updateOption("MjModeClearEnabled", "true");
      const res = await post("/mj/submit/imagine", u.key, body);
      expect(mj.submits().at(-1)!.body).toEqual({ ...body, prompt: "a cat   " });
      // The row keeps the prompt the client wrote.
      expect((await rowOf(res.json.result)).prompt).toBe("a cat --fast --relax --turbo");
    });

    it("forwards the mode prefix (and the query) to the proxy; /mj-{mode}/mj/ reaches it as /mj/", async () => {
      const u = await seedUser();
      expect((await post("/fast/mj/submit/imagine?notify=0", u.key, { prompt: "cat" })).json.code).toBe(1);
      expect(mj.submits().at(-1)!.path).toBe("/fast/mj/submit/imagine?notify=0");
      expect((await post("/relax/mj/insight-face/swap", u.key, { sourceBase64: "a", targetBase64: "b" })).json.code).toBe(1);
      expect(mj.submits().at(-1)!.path).toBe("/relax/mj/insight-face/swap");
      expect((await post("/mj-turbo/mj/submit/imagine", u.key, { prompt: "cat" })).json.code).toBe(1);
      expect(mj.submits().at(-1)!.path).toBe("/mj/submit/imagine");
      expect((await consumeLogs(u.id)).map((l) => l.model_name)).toEqual(["mj_imagine", "swap_face", "mj_imagine"]);
    });

    it("fetch and list-by-condition answer from the database, the caller's own tasks only, with the image behind this server", async () => {
      const u = await seedUser();
      const fox = await finishedImagine(u);
      const running = (await post("/mj/submit/imagine", u.key, { prompt: "wolf" })).json.result as string;
      await pollTasksOnce();
      await pollTasksOnce(); // IN_PROGRESS, with a preview image
      const requestsBefore = mj.requests.length;

      const got = await call("GET", `/mj/task/${fox}/fetch`, u.key);
      expect(got.status).toBe(200);
      expect(got.json).toMatchObject({
        id: fox,
        action: "IMAGINE",
        prompt: "a red fox",
        promptEn: "a red fox",
        status: "SUCCESS",
        progress: "100%",
        failReason: "",
        imageUrl: `https://qiao.example.com/mj/image/${fox}`,
        properties: { finalPrompt: "a red fox" },
      });
      expect(got.json.buttons).toHaveLength(9);
      expect(got.json.buttons[0]).toEqual({ customId: `MJ::JOB::upsample::1::hash-${fox}`, emoji: "", label: "U1", type: 2, style: 2 });
      expect(got.json.submitTime).toBeGreaterThan(0);
      expect(got.json.finishTime).toBeGreaterThanOrEqual(got.json.startTime);
      const unfinished = await call("GET", `/mj/task/${running}/fetch`, u.key);
      expect(unfinished.json).toMatchObject({ status: "IN_PROGRESS", progress: "50%" });
      expect(unfinished.json.imageUrl).toMatch(new RegExp(`^https://qiao\\.example\\.com/mj/image/${running}\\?rand=\\d+$`));

      await updateOption("MjForwardUrlEnabled", "false");
      expect((await call("GET", `/mj/task/${fox}/fetch`, u.key)).json.imageUrl).toBe(`${mj.url}/images/${fox}.png`);

      const stranger = await seedUser();
      const strangers = (await post("/mj/submit/imagine", stranger.key, { prompt: "owl" })).json.result as string;
      const notMine = await call("GET", `/mj/task/${fox}/fetch`, stranger.key);
      expect(notMine.status).toBe(404);
      expect(notMine.json).toMatchObject({ description: expect.stringContaining(`任务不存在：${fox}`), code: 4 });

      const listed = await post("/mj/task/list-by-condition", u.key, { ids: [fox, running, strangers, "nope"] });
      expect(listed.status).toBe(200);
      expect(listed.json.map((t: { id: string }) => t.id)).toEqual([fox, running]);
      expect((await post("/mj/task/list-by-condition", u.key, { ids: [] })).json).toEqual([]);
      // Served from the database: the proxy was not asked (only the stranger's submit reached it).
      expect(mj.requests.slice(requestsBefore).map((r) => r.path)).toEqual(["/mj/submit/imagine"]);
    });

    it("image-seed is asked of the task's proxy; another user's task is not found", async () => {
      const u = await seedUser();
      const fox = await finishedImagine(u);
      const seed = await call("GET", `/fast/mj/task/${fox}/image-seed`, u.key);
      expect(seed.status).toBe(200);
      expect(seed.json).toEqual({ code: 1, description: "成功", result: `seed-${fox}` });
      expect(mj.requests.at(-1)).toMatchObject({ method: "GET", path: `/fast/mj/task/${fox}/image-seed` });
      expect(mj.requests.at(-1)!.headers["mj-api-secret"]).toBe(mj.secret);
      const stranger = await seedUser();
      expect((await call("GET", `/mj/task/${fox}/image-seed`, stranger.key)).status).toBe(404);
    });

    it("/mj/image/{id} serves the task's image without a key, fetched as a user's URL: an internal address is refused", async () => {
      const u = await seedUser();
      const fox = await finishedImagine(u);
      // The stored address is the mock's, on loopback: the SSRF guard refuses it.
      const refused = await call("GET", `/mj/image/${fox}`, null);
      expect(refused.status).toBe(502);
      expect(refused.json).toMatchObject({
        description: expect.stringContaining(FETCH_URL_MSG.internalAddress),
        type: "upstream_error",
        code: 5,
      });
      expect(mj.requests.some((r) => r.path.startsWith("/images/"))).toBe(false);

      // Through root's worker proxy the image comes back as bytes.
      await updateOption("WorkerUrl", `${mj.url}/worker`);
      const res = await fetch(`${relay.url}/mj/image/${fox}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
      expect(Buffer.from(await res.arrayBuffer())).toEqual(PNG);
      expect(mj.requests.at(-1)).toMatchObject({ path: "/worker" });
      expect(mj.requests.at(-1)!.body).toMatchObject({ url: `${mj.url}/images/${fox}.png`, method: "GET" });

      const missing = await call("GET", "/mj/image/0000", null);
      expect(missing.status).toBe(404);
      expect(missing.json).toMatchObject({ description: expect.stringContaining("任务不存在：0000"), code: 4 });
    });
  });
}

describe("the poller on Midjourney tasks", () => {
  let relay: RelayServer;
  let channelId: number;
  const imagine = async (u: User, prompt: string) => {
    const res = await fetch(`${relay.url}/mj/submit/imagine`, {
      method: "POST",
      headers: { authorization: `Bearer ${u.key}`, "content-type": "application/json" },
      body: JSON.stringify({ prompt }),
    });
    const json = (await res.json()) as { code: number; result: string };
    expect(json.code).toBe(1);
    return json.result;
  };
  const systemLogs = async (userId: number) => (await db()).log.findMany({ where: { user_id: userId, type: 4 } });

  beforeAll(async () => {
    relay = await startRelay("node");
  });
  afterAll(async () => {
    await relay.close();
  });
  beforeEach(async () => {
    channelId = (await resetWorld()).id;
  });
  afterEach(() => {
    mj.failTasks = false;
  });

  it("moves a task through SUBMITTED and IN_PROGRESS to SUCCESS, with its image, buttons and times", async () => {
    const u = await seedUser();
    const id = await imagine(u, "a red fox");
    expect(await rowOf(id)).toMatchObject({ status: "SUBMITTED", progress: "0%" });
    await pollTasksOnce();
    expect(await rowOf(id)).toMatchObject({ status: "SUBMITTED", code: 1 });
    const summary = await pollTasksOnce();
    expect(summary).toMatchObject({ polled: 1, finished: 0, failed: 0 });
    const running = await rowOf(id);
    expect(running).toMatchObject({ status: "IN_PROGRESS", progress: "50%", image_url: `${mj.url}/images/${id}-preview.png` });
    expect(running.start_time).toBeGreaterThan(0n);
    expect(await pollTasksOnce()).toMatchObject({ polled: 1, finished: 1, failed: 0, refunded: 0n });
    const done = await rowOf(id);
    expect(done).toMatchObject({
      status: "SUCCESS",
      progress: "100%",
      image_url: `${mj.url}/images/${id}.png`,
      prompt_en: "a red fox",
      fail_reason: "",
    });
    expect(JSON.parse(done.buttons)).toHaveLength(9);
    expect(JSON.parse(done.properties)).toEqual({ finalPrompt: "a red fox", finalZhPrompt: "" });
    expect(done.finish_time).toBeGreaterThanOrEqual(done.start_time);
    // Finished: never asked about again.
    const asked = mj.requests.length;
    expect(await pollTasksOnce()).toMatchObject({ polled: 0 });
    expect(mj.requests.length).toBe(asked);
  });

  it("a failed task is refunded to the user and the key exactly once, however many polls race over it", async () => {
    const u = await seedLimitedUser(1_000_000, 200_000);
    mj.failTasks = true;
    const id = await imagine(u, "forbidden");
    await pollTasksOnce();
    await pollTasksOnce();
    expect(await rowOf(id)).toMatchObject({ status: "IN_PROGRESS" });
    expect(await u.quota()).toBe(1_000_000n - PRICE.tenth);
    expect(await tokenOf(u.tokenId)).toMatchObject({ remain_quota: 200_000n - PRICE.tenth, used_quota: PRICE.tenth });

    const summaries = await Promise.all([pollTasksOnce(), pollTasksOnce(), pollTasksOnce()]);
    await pollTasksOnce();
    expect(summaries.reduce((n, s) => n + s.failed, 0)).toBe(1);
    expect(summaries.reduce((n, s) => n + s.refunded, 0n)).toBe(PRICE.tenth);
    expect(await rowOf(id)).toMatchObject({ status: "FAILURE", progress: "100%", fail_reason: "Request cancelled due to image filters" });
    expect(await userRow(u.id)).toMatchObject({ quota: 1_000_000n, used_quota: 0n, request_count: 1 });
    expect(await tokenOf(u.tokenId)).toMatchObject({ remain_quota: 200_000n, used_quota: 0n });
    expect((await (await db()).channel.findUniqueOrThrow({ where: { id: channelId } })).used_quota).toBe(0n);
    const refunds = await systemLogs(u.id);
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({
      content: `构图失败 Request cancelled due to image filters，补偿 ${PRICE.tenth}`,
      quota: PRICE.tenth,
    });
  });

  it("a task not finished within an hour fails with 上游任务超时（超过1小时） and is refunded once", async () => {
    const u = await seedLimitedUser(1_000_000, 200_000);
    const id = await imagine(u, "slow");
    const later = Date.now() + 61 * 60 * 1000;
    const [a, b] = await Promise.all([pollTasksOnce(later), pollTasksOnce(later)]);
    expect(a.failed + b.failed).toBe(1);
    expect(await rowOf(id)).toMatchObject({ status: "FAILURE", fail_reason: TIMEOUT_REASON });
    expect(await userRow(u.id)).toMatchObject({ quota: 1_000_000n, used_quota: 0n });
    expect(await tokenOf(u.tokenId)).toMatchObject({ remain_quota: 200_000n, used_quota: 0n });
    expect((await systemLogs(u.id)).map((l) => l.content)).toEqual([`构图失败 ${TIMEOUT_REASON}，补偿 ${PRICE.tenth}`]);
  });

  it("after a success, a failure and a timeout, the user's and the key's totals are exact", async () => {
    const u = await seedLimitedUser(1_000_000, 500_000);
    const ok = await imagine(u, "fine");
    mj.failTasks = true;
    const bad = await imagine(u, "bad");
    mj.failTasks = false;
    for (let i = 0; i < 3; i++) await pollTasksOnce();
    expect((await rowOf(ok)).status).toBe("SUCCESS");
    expect((await rowOf(bad)).status).toBe("FAILURE");
    const slow = await imagine(u, "slow");
    await pollTasksOnce(Date.now() + 2 * 60 * 60 * 1000);
    expect((await rowOf(slow)).status).toBe("FAILURE");
    expect(await userRow(u.id)).toMatchObject({ quota: 1_000_000n - PRICE.tenth, used_quota: PRICE.tenth, request_count: 3 });
    expect(await tokenOf(u.tokenId)).toMatchObject({ remain_quota: 500_000n - PRICE.tenth, used_quota: PRICE.tenth });
    expect((await consumeLogs(u.id)).map((l) => l.quota)).toEqual([PRICE.tenth, PRICE.tenth, PRICE.tenth]);
    expect((await systemLogs(u.id)).map((l) => l.quota)).toEqual([PRICE.tenth, PRICE.tenth]);
  });
});

type PollResult = { polled: number; finished: number; failed: number; refunded: string };

describeOnEveryDatabase(
  (kind) => `Midjourney refunds on ${kind}, two pollers racing`,
  ({ t, start }) => {
    it("a task the proxy failed and a task past its hour are each refunded once, to the user and the key", async () => {
      const { db: d } = t();
      const quota = PRICE.tenth;
      const user = await d.user.create({
        data: { username: `race${Date.now()}`, password: "x", quota: 1_000_000n - 2n * quota, used_quota: 2n * quota, request_count: 2 },
      });
      const token = await d.token.create({
        data: { user_id: user.id, key_hash: `hash-${user.id}`, key_enc: "x", remain_quota: 200_000n - 2n * quota, used_quota: 2n * quota },
      });
      const channel = await d.channel.create({
        data: {
          type: 2,
          name: "mj",
          key: mj.secret,
          base_url: mj.url,
          models: "mj_imagine",
          group: "default",
          address_by_root: true,
          used_quota: 2n * quota,
        },
      });
      const row = {
        user_id: user.id,
        token_id: token.id,
        token_quota: quota,
        channel_id: channel.id,
        action: "IMAGINE",
        code: 1,
        quota,
        progress: "50%",
        status: "IN_PROGRESS",
      };
      const failed = await d.midjourney.create({ data: { ...row, mj_id: `fail-${t().kind}`, submit_time: BigInt(Date.now()) } });
      const late = await d.midjourney.create({
        data: { ...row, mj_id: `late-${t().kind}`, submit_time: BigInt(Date.now() - 2 * 60 * 60 * 1000) },
      });
      mj.addTask(failed.mj_id, { status: "IN_PROGRESS", fails: true });
      mj.addTask(late.mj_id, { status: "IN_PROGRESS" });

      const env = { TASK_POLL_JOB: JSON.stringify({ kind: "poll", rounds: 3 }) };
      const results = await race<PollResult>([start("task-poll-process.ts", env), start("task-poll-process.ts", env)]);
      expect(results).toHaveLength(6);
      expect(results.reduce((n, r) => n + r.failed, 0)).toBe(2);
      expect(results.reduce((n, r) => n + BigInt(r.refunded), 0n)).toBe(2n * quota);

      expect(await d.midjourney.findUniqueOrThrow({ where: { id: failed.id } })).toMatchObject({
        status: "FAILURE",
        progress: "100%",
        fail_reason: "Request cancelled due to image filters",
      });
      expect(await d.midjourney.findUniqueOrThrow({ where: { id: late.id } })).toMatchObject({
        status: "FAILURE",
        fail_reason: TIMEOUT_REASON,
      });
      expect(await d.user.findUniqueOrThrow({ where: { id: user.id } })).toMatchObject({
        quota: 1_000_000n,
        used_quota: 0n,
        request_count: 2,
      });
      expect(await d.token.findUniqueOrThrow({ where: { id: token.id } })).toMatchObject({ remain_quota: 200_000n, used_quota: 0n });
      expect((await d.channel.findUniqueOrThrow({ where: { id: channel.id } })).used_quota).toBe(0n);
      const refunds = await d.log.findMany({ where: { user_id: user.id, type: 4 }, orderBy: { content: "asc" } });
      expect(refunds.map((l) => [l.content, l.quota])).toEqual([
        [`构图失败 Request cancelled due to image filters，补偿 ${quota}`, quota],
        [`构图失败 ${TIMEOUT_REASON}，补偿 ${quota}`, quota],
      ]);
    });
  },
);
