// OpenAI's video API through Qiao, as a client sees it: the official `openai` SDK (its `videos`
// resource: create sends multipart, retrieve, downloadContent, list, remix) and plain fetch for a
// JSON create, against both relay entries, with mock OpenAI and Azure video APIs on loopback.
// Billing is ModelPrice (per second) × seconds × group ratio, charged when the vendor accepts and
// refunded exactly once when the video fails.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI, { toFile } from "openai";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { pollTasksOnce } from "@/lib/tasks/poller";
import { startVideoMock, type VideoMock } from "@/tests/mocks/openai-video";
import { clearRelayData, ENTRIES, seedChannel, seedUser, startRelay, type RelayServer } from "@/tests/helpers/relay";

const UPSTREAM_KEY = "sk-upstream-video-key-0123456789";
/** Quota of a video: US$ per second × seconds × group ratio × 500 000 (QuotaPerUnit). */
const quotaOf = (price: number, seconds: number, groupRatio = 1) => BigInt(Math.round(price * seconds * groupRatio * 500_000));

type User = Awaited<ReturnType<typeof seedUser>>;

/** Byte-for-byte equality (toEqual walks a 200 KiB buffer element by element, for seconds). */
const sameBytes = (got: ArrayBuffer, want: Buffer) => Buffer.from(got).equals(want);

async function money(user: User) {
  const db = await getDb();
  const u = await db.user.findUniqueOrThrow({ where: { id: user.id } });
  const t = await db.token.findUniqueOrThrow({ where: { id: user.tokenId } });
  return { quota: u.quota, used: u.used_quota, keyRemain: t.remain_quota, keyUsed: t.used_quota };
}

async function channelUsed(id: number) {
  return (await (await getDb()).channel.findUniqueOrThrow({ where: { id } })).used_quota;
}

async function taskRow(taskId: string) {
  return (await getDb()).task.findFirstOrThrow({ where: { task_id: taskId } });
}

async function logs(userId: number, type: number) {
  return (await getDb()).log.findMany({ where: { user_id: userId, type }, orderBy: { id: "asc" } });
}

/** A user whose key has a limit, so the key's remaining quota moves too. */
const seedPayingUser = (group = "default") =>
  seedUser({ group, quota: 50_000_000, token: { unlimited_quota: false, remain_quota: 20_000_000 } });

for (const entry of ENTRIES) {
  describe(`videos through the ${entry} entry`, () => {
    let mock: VideoMock;
    let backup: VideoMock;
    let relay: RelayServer;
    let channelId: number;
    let user: User;
    let client: OpenAI;
    const clientFor = (key: string) => new OpenAI({ apiKey: key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
    /** Every answer's text, to prove the vendor's address and key never reach a client. */
    let seen: string[];
    const remember = async (res: Response) => {
      seen.push(await res.clone().text());
      return res;
    };

    beforeAll(async () => {
      mock = await startVideoMock({ apiKey: UPSTREAM_KEY, downloadUrls: true });
      backup = await startVideoMock({ apiKey: UPSTREAM_KEY });
      relay = await startRelay(entry);
      await updateOption("GroupRatio", JSON.stringify({ default: 1, vip: 1.5 }));
      await updateOption("UserUsableGroups", JSON.stringify({ default: "默认分组", vip: "vip分组" }));
    });
    afterAll(async () => {
      await relay.close();
      await mock.close();
      await backup.close();
    });
    beforeEach(async () => {
      mock.reset();
      backup.reset();
      await updateOption("RetryTimes", "0");
      await clearRelayData();
      await (await getDb()).task.deleteMany();
      channelId = (await seedChannel({ base_url: mock.url, key: UPSTREAM_KEY, models: "sora-2,sora-2-pro", group: "default,vip" })).id;
      user = await seedPayingUser();
      seen = [];
      client = new OpenAI({
        apiKey: user.key,
        baseURL: `${relay.url}/v1`,
        maxRetries: 0,
        fetch: async (url, init) => remember(await fetch(url, init)),
      });
    });

    const postJson = (key: string, body: unknown) =>
      fetch(`${relay.url}/v1/videos`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then(remember);

    it("creates a video from JSON, billed ModelPrice × seconds × group ratio to the user, the key and the channel, and logged", async () => {
      const vip = await seedPayingUser("vip");
      const before = await money(vip);
      const res = await postJson(vip.key, { model: "sora-2", prompt: "a fox in the snow", seconds: "8", size: "1280x720" });
      expect(res.status).toBe(200);
      const video = await res.json();
      const upstream = mock.videos.get(video.id)!;
      expect(upstream).toBeDefined();
      expect(video).toMatchObject({
        id: upstream.id,
        object: "video",
        model: "sora-2",
        status: "queued",
        progress: 0,
        seconds: "8",
        size: "1280x720",
        prompt: "a fox in the snow",
        completed_at: null,
        error: null,
      });
      const quota = quotaOf(0.1, 8, 1.5);
      expect(quota).toBe(600_000n);
      const after = await money(vip);
      expect(before.quota - after.quota).toBe(quota);
      expect(after.used - before.used).toBe(quota);
      expect(before.keyRemain - after.keyRemain).toBe(quota);
      expect(after.keyUsed - before.keyUsed).toBe(quota);
      expect(await channelUsed(channelId)).toBe(quota);

      const [log] = await logs(vip.id, 2);
      expect(log).toMatchObject({
        model_name: "sora-2",
        quota,
        channel_id: channelId,
        token_id: vip.tokenId,
        group: "vip",
        content: `模型价格 0.1，分组倍率 1.5，数量 8，操作 VIDEO，ID ${video.id}，时长 8 秒`,
      });
      expect(JSON.parse(log!.other)).toMatchObject({
        model_price: 0.1,
        group_ratio: 1.5,
        units: 8,
        task_id: video.id,
        request_path: "/v1/videos",
      });

      const row = await taskRow(video.id);
      expect(row).toMatchObject({
        platform: "openai-video",
        action: "VIDEO",
        status: "QUEUED",
        user_id: vip.id,
        channel_id: channelId,
        quota,
      });
      expect(JSON.parse(row.properties)).toEqual({ model: "sora-2", seconds: 8, size: "1280x720", prompt: "a fox in the snow" });

      const sent = mock.requests.at(-1)!;
      expect(sent).toMatchObject({ path: "/v1/videos", kind: "create", surface: "openai" });
      expect(sent.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
      expect(sent.json).toEqual({ model: "sora-2", prompt: "a fox in the snow", seconds: "8", size: "1280x720" });
    });

    it("creates a video with the SDK's multipart upload, the reference image forwarded, the channel's model mapping applied", async () => {
      await clearRelayData();
      channelId = (
        await seedChannel({
          base_url: mock.url,
          key: UPSTREAM_KEY,
          models: "sora-2-pro",
          model_mapping: '{"sora-2-pro":"sora-2-pro-2025-10-06"}',
        })
      ).id;
      const before = await money(user);
      const image = Buffer.from("\x89PNG\r\n\x1a\nreference-image-bytes");
      const video = await client.videos.create({
        model: "sora-2-pro",
        prompt: "the same cat, now dancing",
        seconds: "12",
        input_reference: await toFile(image, "cat.png", { type: "image/png" }),
      });
      expect(video).toMatchObject({ object: "video", model: "sora-2-pro", seconds: "12", status: "queued" });
      const sent = mock.requests.at(-1)!;
      expect(sent.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
      expect(sent.form!.get("model")).toBe("sora-2-pro-2025-10-06");
      expect(sent.form!.get("prompt")).toBe("the same cat, now dancing");
      expect(sent.form!.get("seconds")).toBe("12");
      const file = sent.form!.get("input_reference") as File;
      expect(file.name).toBe("cat.png");
      expect(Buffer.from(await file.arrayBuffer())).toEqual(image);
      expect(before.quota - (await money(user)).quota).toBe(quotaOf(0.3, 12));
    });

    it("refuses bad seconds, a missing prompt, a bad size and a sensitive word with a 400, charging nothing and asking no vendor", async () => {
      const before = await money(user);
      for (const [body, param] of [
        [{ model: "sora-2", prompt: "x", seconds: "5" }, "seconds"],
        [{ model: "sora-2", prompt: "x", seconds: 16 }, "seconds"],
        [{ model: "sora-2", seconds: "4" }, "prompt"],
        [{ model: "sora-2", prompt: "  " }, "prompt"],
        [{ model: "sora-2", prompt: "x", size: "huge" }, "size"],
        [{ model: 7, prompt: "x" }, "model"],
      ] as const) {
        const res = await postJson(user.key, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        const { error } = await res.json();
        expect(error).toMatchObject({ type: "invalid_request_error", param });
      }
      await expect(client.videos.create({ prompt: "x", seconds: "6" as "4" })).rejects.toMatchObject({ status: 400 });
      // The default sensitive word list holds "test_sensitive"; prompts are checked by default.
      const sensitive = await postJson(user.key, { prompt: "a test_sensitive scene" });
      expect(sensitive.status).toBe(400);
      expect((await sensitive.json()).error).toMatchObject({ code: "sensitive_words_detected" });
      expect(mock.requests).toHaveLength(0);
      expect(await money(user)).toEqual(before);
      expect(await (await getDb()).task.count()).toBe(0);
    });

    it("a vendor's 4xx is the client's answer and costs nothing; no consume log", async () => {
      const before = await money(user);
      mock.failCreates(400);
      const res = await postJson(user.key, { prompt: "a dog" });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatchObject({
        message: expect.stringContaining("Invalid request."),
        type: "invalid_request_error",
      });
      expect(mock.requests.filter((r) => r.kind === "create")).toHaveLength(1);
      const after = await money(user);
      expect([after.quota, after.used, after.keyRemain, after.keyUsed]).toEqual([
        before.quota,
        before.used,
        before.keyRemain,
        before.keyUsed,
      ]);
      expect(await channelUsed(channelId)).toBe(0n);
      expect(await logs(user.id, 2)).toHaveLength(0);
      expect(await logs(user.id, 4)).toHaveLength(0);
      const row = await (await getDb()).task.findFirstOrThrow({ where: { user_id: user.id } });
      expect(row).toMatchObject({ status: "FAILURE", task_id: "", fail_reason: "Invalid request." });
      // A refused submit is no video of the caller's.
      expect((await client.videos.list()).data).toEqual([]);
    });

    it("a vendor's 5xx is retried on another channel, which bills it", async () => {
      await updateOption("RetryTimes", "1");
      await clearRelayData();
      channelId = (await seedChannel({ base_url: mock.url, key: UPSTREAM_KEY, models: "sora-2", priority: 10 })).id;
      const second = await seedChannel({ base_url: backup.url, key: UPSTREAM_KEY, models: "sora-2", priority: 0 });
      mock.failCreates(500, 5);
      const before = await money(user);
      const video = await client.videos.create({ model: "sora-2", prompt: "a river", seconds: "4" });
      expect(mock.requests.filter((r) => r.kind === "create")).toHaveLength(1);
      expect(backup.videos.has(video.id)).toBe(true);
      expect(before.quota - (await money(user)).quota).toBe(quotaOf(0.1, 4));
      expect((await taskRow(video.id)).channel_id).toBe(second.id);
      expect(await channelUsed(channelId)).toBe(0n);
      expect(await channelUsed(second.id)).toBe(quotaOf(0.1, 4));
    });

    it("a 200 that is no video is refused and costs nothing: a proxy's page is tried elsewhere, a video failed at once is not", async () => {
      await updateOption("RetryTimes", "1");
      await clearRelayData();
      channelId = (await seedChannel({ base_url: mock.url, key: UPSTREAM_KEY, models: "sora-2", priority: 10 })).id;
      await seedChannel({ base_url: backup.url, key: UPSTREAM_KEY, models: "sora-2", priority: 0 });
      const before = await money(user);
      mock.failCreates(200, 1, { contentType: "text/html", body: "<html>Sign in to the proxy</html>" });
      const video = await client.videos.create({ prompt: "behind a proxy", seconds: "4" });
      expect(backup.videos.has(video.id)).toBe(true);
      expect(before.quota - (await money(user)).quota).toBe(quotaOf(0.1, 4));

      const failedAtOnce = { id: "video_x", object: "video", status: "failed", error: { code: "moderation_blocked", message: "Blocked." } };
      mock.failCreates(200, 1, { contentType: "application/json", body: JSON.stringify(failedAtOnce) });
      const middle = await money(user);
      const res = await postJson(user.key, { prompt: "blocked" });
      expect(res.status).toBe(502);
      expect((await res.json()).error).toMatchObject({ code: "moderation_blocked", message: expect.stringContaining("Blocked.") });
      expect(backup.requests.filter((r) => r.kind === "create")).toHaveLength(1);
      expect(await money(user)).toEqual(middle);
      expect(await logs(user.id, 2)).toHaveLength(1);
    });

    it("answers a caller's own video, and 404 for another user's", async () => {
      const video = await client.videos.create({ prompt: "mine", seconds: "4" });
      const other = await seedPayingUser();
      const err = await clientFor(other.key)
        .videos.retrieve(video.id)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
      expect((err as InstanceType<typeof OpenAI.NotFoundError>).error).toMatchObject({
        type: "invalid_request_error",
        code: "video_not_found",
      });
      await expect(clientFor(other.key).videos.downloadContent(video.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
      await expect(client.videos.retrieve("video_nobody")).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    });

    it("a fetch of a running video asks the vendor first, so the client sees its true state", async () => {
      const created = await client.videos.create({ prompt: "a slow sunrise", seconds: "8" });
      const running = await client.videos.retrieve(created.id);
      expect(running).toMatchObject({ id: created.id, status: "in_progress", progress: 42, model: "sora-2", seconds: "8" });
      const row = await taskRow(created.id);
      expect(row).toMatchObject({ status: "IN_PROGRESS", progress: "42%" });
      expect(row.start_time).toBeGreaterThan(0n);
      const done = await client.videos.retrieve(created.id);
      expect(done).toMatchObject({ status: "completed", progress: 100, error: null });
      expect(done.completed_at).toBe(mock.videos.get(created.id)!.completed_at);
      expect(done.expires_at).toBe(mock.videos.get(created.id)!.expires_at);
      expect(await taskRow(created.id)).toMatchObject({ status: "SUCCESS", progress: "100%" });
      // Finished: answered from the row, the vendor is not asked again.
      const asked = mock.requests.length;
      expect(await client.videos.retrieve(created.id)).toMatchObject({ status: "completed" });
      expect(mock.requests).toHaveLength(asked);
    });

    it("streams a finished video's bytes with the vendor's type and length; refuses one not finished", async () => {
      const created = await client.videos.create({ prompt: "waves", seconds: "4" });
      const early = await client.videos.downloadContent(created.id).catch((e: unknown) => e);
      expect(early).toBeInstanceOf(OpenAI.BadRequestError);
      expect((early as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ code: "video_not_ready" });
      await client.videos.retrieve(created.id); // completed now
      const res = await client.videos.downloadContent(created.id);
      const expected = mock.contentOf(created.id);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("video/mp4");
      expect(res.headers.get("content-length")).toBe(String(expected.bytes.length));
      expect(sameBytes(await res.arrayBuffer(), expected.bytes)).toBe(true);
      expect(mock.requests.at(-1)!.query.get("variant")).toBe("video");

      const thumbnail = await client.videos.downloadContent(created.id, { variant: "thumbnail" });
      expect(thumbnail.headers.get("content-type")).toBe("image/webp");
      expect(sameBytes(await thumbnail.arrayBuffer(), mock.contentOf(created.id, "thumbnail").bytes)).toBe(true);
      await expect(client.videos.downloadContent(created.id, { variant: "poster" as "video" })).rejects.toBeInstanceOf(
        OpenAI.BadRequestError,
      );
    });

    it("never shows the vendor's address or key, in answers, failures or logs", async () => {
      const ok = await client.videos.create({ prompt: "a lighthouse", seconds: "4" });
      const bad = await client.videos.create({ prompt: "[fail] a lighthouse", seconds: "4" });
      await client.videos.retrieve(ok.id);
      await client.videos.retrieve(bad.id);
      const done = await client.videos.retrieve(ok.id);
      const failed = await client.videos.retrieve(bad.id);
      expect(done.status).toBe("completed");
      expect(failed.status).toBe("failed");
      expect(failed.error!.code).toBe("moderation_blocked");
      expect(failed.error!.message).toContain("Your request was blocked by our moderation system");
      await client.videos.downloadContent(ok.id);
      await client.videos.list();
      const stored = await (await getDb()).task.findMany();
      const logRows = await (await getDb()).log.findMany({ where: { user_id: user.id } });
      const everything = [...seen, ...stored.map((r) => `${r.data} ${r.fail_reason}`), ...logRows.map((l) => `${l.content} ${l.other}`)];
      expect(everything.length).toBeGreaterThan(8);
      for (const text of everything) {
        expect(text).not.toContain(`127.0.0.1:${mock.port}`);
        expect(text).not.toContain("download_url");
        expect(text).not.toContain(UPSTREAM_KEY);
      }
      // The mock did send both.
      expect(JSON.stringify([...mock.videos.values()])).toContain(UPSTREAM_KEY);
    });

    it("the poller finishes a video and fails another, refunding it exactly once with an 异步任务执行失败 log", async () => {
      const before = await money(user);
      const ok = await client.videos.create({ prompt: "a garden", seconds: "8" });
      const bad = await client.videos.create({ prompt: "[fail] a garden", seconds: "12" });
      const each = (seconds: number) => quotaOf(0.1, seconds);
      expect(before.quota - (await money(user)).quota).toBe(each(8) + each(12));

      expect(await pollTasksOnce()).toMatchObject({ polled: 2, finished: 0, failed: 0 });
      expect((await taskRow(ok.id)).status).toBe("IN_PROGRESS");
      expect(await pollTasksOnce()).toMatchObject({ polled: 2, finished: 1, failed: 1, refunded: each(12) });
      expect(await taskRow(ok.id)).toMatchObject({ status: "SUCCESS", progress: "100%" });
      const failedRow = await taskRow(bad.id);
      expect(failedRow).toMatchObject({ status: "FAILURE", progress: "100%" });
      expect(failedRow.fail_reason).toContain("Your request was blocked by our moderation system");

      const after = await money(user);
      expect(before.quota - after.quota).toBe(each(8));
      expect(after.used - before.used).toBe(each(8));
      expect(before.keyRemain - after.keyRemain).toBe(each(8));
      expect(await channelUsed(channelId)).toBe(each(8));
      const refunds = await logs(user.id, 4);
      expect(refunds).toHaveLength(1);
      expect(refunds[0]!.content).toBe(`异步任务执行失败 ${failedRow.fail_reason}，补偿 ${each(12)}`);
      expect(refunds[0]!.quota).toBe(each(12));

      // Nothing is open any more: another round asks no one and refunds nothing.
      const asked = mock.requests.length;
      expect(await pollTasksOnce()).toMatchObject({ polled: 0, failed: 0, refunded: 0n });
      expect(mock.requests).toHaveLength(asked);
      expect((await money(user)).quota).toBe(after.quota);
      expect(await client.videos.retrieve(bad.id)).toMatchObject({ status: "failed", error: { message: failedRow.fail_reason } });
    });

    it("a failure seen by the poller and by a client's fetch at the same moment is refunded once", async () => {
      const bad = await client.videos.create({ prompt: "[fail] twice", seconds: "4" });
      await client.videos.retrieve(bad.id); // in progress
      const before = await money(user);
      const [summary, seenByClient] = await Promise.all([pollTasksOnce(), client.videos.retrieve(bad.id)]);
      expect(seenByClient.status).toBe("failed");
      expect(summary.polled).toBeLessThanOrEqual(1);
      expect((await money(user)).quota - before.quota).toBe(quotaOf(0.1, 4));
      expect(await logs(user.id, 4)).toHaveLength(1);
    });

    it("lists only the caller's own videos, newest first, in OpenAI's list shape", async () => {
      const first = await client.videos.create({ prompt: "one", seconds: "4" });
      const second = await client.videos.create({ prompt: "two", seconds: "4" });
      const other = await seedPayingUser();
      const theirs = await clientFor(other.key).videos.create({ prompt: "theirs", seconds: "4" });

      const page = await client.videos.list({ limit: 1 });
      expect(page.data.map((v) => v.id)).toEqual([second.id]);
      expect(page.has_more).toBe(true);
      const all: string[] = [];
      for await (const v of client.videos.list({ limit: 1 })) all.push(v.id);
      expect(all).toEqual([second.id, first.id]);
      const oldestFirst = await client.videos.list({ order: "asc" });
      expect(oldestFirst.data.map((v) => v.id)).toEqual([first.id, second.id]);
      expect((await clientFor(other.key).videos.list()).data.map((v) => v.id)).toEqual([theirs.id]);

      const res = await fetch(`${relay.url}/v1/videos?limit=10`, { headers: { authorization: `Bearer ${user.key}` } });
      expect(await res.json()).toMatchObject({ object: "list", first_id: second.id, last_id: first.id, has_more: false });
      const badLimit = await fetch(`${relay.url}/v1/videos?limit=1000`, { headers: { authorization: `Bearer ${user.key}` } });
      expect(badLimit.status).toBe(400);
    });

    it("remixes a finished video on its channel, billed like a create of its model and length; only the owner's", async () => {
      const original = await client.videos.create({ model: "sora-2-pro", prompt: "a red kite", seconds: "8" });
      await client.videos.retrieve(original.id);
      const other = await seedPayingUser();
      const otherBefore = await money(other);
      await expect(clientFor(other.key).videos.remix(original.id, { prompt: "steal" })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
      expect(await money(other)).toEqual(otherBefore);
      // Not finished yet: refused before anything is charged.
      const before = await money(user);
      await expect(client.videos.remix(original.id, { prompt: "a blue kite" })).rejects.toBeInstanceOf(OpenAI.BadRequestError);
      expect(await money(user)).toEqual(before);

      await client.videos.retrieve(original.id); // completed
      const remix = await client.videos.remix(original.id, { prompt: "a blue kite" });
      expect(remix).toMatchObject({
        model: "sora-2-pro",
        seconds: "8",
        prompt: "a blue kite",
        remixed_from_video_id: original.id,
        status: "queued",
      });
      const sent = mock.requests.at(-1)!;
      expect(sent).toMatchObject({ path: `/v1/videos/${original.id}/remix`, kind: "remix" });
      expect(sent.json).toEqual({ prompt: "a blue kite" });
      expect(before.quota - (await money(user)).quota).toBe(quotaOf(0.3, 8));
      expect(await taskRow(remix.id)).toMatchObject({ channel_id: channelId, action: "VIDEO" });
      expect(JSON.parse((await taskRow(remix.id)).properties)).toMatchObject({ remix_of: original.id, seconds: 8, model: "sora-2-pro" });
      const [, log] = await logs(user.id, 2);
      expect(log!.content).toBe(`模型价格 0.3，分组倍率 1，数量 8，操作 VIDEO，ID ${remix.id}，时长 8 秒`);
    });

    it("on an Azure channel: the v1 surface with api-version=preview, the api-key header and the deployment as model", async () => {
      await clearRelayData();
      const azure = await seedChannel({
        type: 3,
        base_url: mock.url,
        key: UPSTREAM_KEY,
        models: "sora-2",
        other: "2024-10-21",
        model_mapping: '{"sora-2":"my-sora.2"}',
      });
      const video = await client.videos.create({ prompt: "a harbour at dusk", seconds: "4" });
      const create = mock.requests.at(-1)!;
      expect(create).toMatchObject({ path: "/openai/v1/videos", surface: "azure", kind: "create" });
      expect(create.query.get("api-version")).toBe("preview");
      expect(create.headers["api-key"]).toBe(UPSTREAM_KEY);
      expect(create.headers.authorization).toBeUndefined();
      expect(create.form!.get("model")).toBe("my-sora2");
      expect(video.model).toBe("sora-2");

      await client.videos.retrieve(video.id);
      expect(mock.requests.at(-1)).toMatchObject({ path: `/openai/v1/videos/${video.id}`, kind: "retrieve" });
      expect(mock.requests.at(-1)!.query.get("api-version")).toBe("preview");
      expect(await pollTasksOnce()).toMatchObject({ polled: 1, finished: 1 });
      const res = await client.videos.downloadContent(video.id);
      expect(sameBytes(await res.arrayBuffer(), mock.contentOf(video.id).bytes)).toBe(true);
      const content = mock.requests.at(-1)!;
      expect(content).toMatchObject({ path: `/openai/v1/videos/${video.id}/content`, kind: "content" });
      expect(content.headers["api-key"]).toBe(UPSTREAM_KEY);
      expect(await taskRow(video.id)).toMatchObject({ channel_id: azure.id, status: "SUCCESS" });
    });
  });
}
