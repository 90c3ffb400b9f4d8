// The drawing and task logs (spec §2 "Drawing (midjourney) page" and Task page, §4 codes and
// statuses, §9 default ranges and the red spend time) through the real console. Rows are seeded
// into the e2e database (as the relay would have written them) for a fresh user and for root;
// DrawingEnabled and TaskEnabled are switched on through the options API, MjNotifyEnabled off. The
// user reaches both pages from the menu, reads only their own tasks, filters them, opens an image
// and a prompt; root reads everyone's with the channel filter and the callback-off notice.
// Screenshots in light, dark and at 390 px.
import path from "node:path";
import type { APIRequestContext, Locator } from "@playwright/test";
import Database from "better-sqlite3";
import { E2E_BASE_URL, ROOT_STATE } from "./env";
import { expect, expectFits, newUserSession, type Page, setOption, setOptions, shot, sideMenu, test, uniqueName } from "./support";

test.describe.configure({ timeout: 120_000 });

const OPTIONS = { DrawingEnabled: "true", TaskEnabled: "true", MjNotifyEnabled: "false" };
const NOTIFY_OFF = "当前未开启Midjourney回调，部分项目可能无法获得绘图结果，可在运营设置中开启。";
/** Where the vendor keeps the images: it must never reach the page. */
const VENDOR_IMAGE = "https://cdn.vendor-mj.example/attachments/e2e/grid.png";
const LONG_PROMPT =
  "a lighthouse on a cliff at dusk, volumetric light, crashing waves, ultra detailed, cinematic composition, 35mm film grain --ar 16:9 --v 6";

let root: APIRequestContext;
let restoreOptions: (() => Promise<void>) | undefined;

test.beforeAll(async ({ playwright }) => {
  root = await playwright.request.newContext({
    baseURL: E2E_BASE_URL,
    storageState: ROOT_STATE,
    extraHTTPHeaders: { "New-Api-User": "1" },
  });
  restoreOptions = await setOptions(root, OPTIONS);
});

test.afterAll(async () => {
  await restoreOptions?.();
  await root.dispose();
});

const SECOND = 1000;
const DAY = 24 * 3600 * SECOND;

type Seeded = {
  mjDone: string;
  mjRunning: string;
  mjOld: string;
  mjRoot: string;
  music: string;
  video: string;
  taskOld: string;
  channel: number;
  channel2: number;
};

/**
 * A Midjourney channel of the seed's own whose proxy never answers (nothing listens on port 9): the
 * console's poller asks it about the running rows, fails to reach it and leaves them running. A
 * channel id that does not exist would have them refunded as 渠道已删除 at its next round. Its model
 * is one nobody calls, so no submit of the other tests is routed to it.
 */
async function unreachableChannel(name: string): Promise<number> {
  const body = await (
    await root.post("/api/channel/", {
      data: { name, type: 2, key: "e2e-unreachable", base_url: "http://127.0.0.1:9", models: "e2e-seed-only", group: "default" },
    })
  ).json();
  expect(body.success, `channel ${name}: ${body.message}`).toBe(true);
  return body.data[0].id as number;
}

/** The tasks the relay would have written for `userId` (and one of root's), times relative to now. */
async function seed(userId: number): Promise<Seeded> {
  const tag = uniqueName("");
  const ids: Seeded = {
    mjDone: `mj-done-${tag}`,
    mjRunning: `mj-run-${tag}`,
    mjOld: `mj-old-${tag}`,
    mjRoot: `mj-root-${tag}`,
    music: `suno-${tag}`,
    video: `video-${tag}`,
    taskOld: `suno-old-${tag}`,
    // Channels of their own, so root's channel filter finds only these rows.
    channel: await unreachableChannel(`mj-seed-${tag}`),
    channel2: await unreachableChannel(`mj-seed2-${tag}`),
  };
  const now = Date.now();
  const db = new Database(path.join(process.env.QIAO_E2E_DATA_DIR!, "qiao.db"));
  try {
    const drawing = db.prepare(
      `INSERT INTO midjourneys (user_id, code, action, mj_id, prompt, prompt_en, submit_time, finish_time, image_url, status, progress,
         fail_reason, channel_id, quota, token_id, request_id)
       VALUES (@user, @code, @action, @mj, @prompt, @prompt_en, @submit, @finish, @image, @status, @progress, @fail, @channel, 5000, 3, @req)`,
    );
    const base = { code: 1, prompt_en: "", image: "", fail: "", req: `req-${tag}` };
    // Done in 95 s: red.
    drawing.run({
      ...base,
      user: userId,
      action: "IMAGINE",
      mj: ids.mjDone,
      prompt: LONG_PROMPT,
      prompt_en: "a lighthouse",
      submit: now - 10 * 60 * SECOND,
      finish: now - 10 * 60 * SECOND + 95 * SECOND,
      image: VENDOR_IMAGE,
      status: "SUCCESS",
      progress: "100%",
      channel: ids.channel,
    });
    // Running for 20 s: green, counted to now.
    drawing.run({
      ...base,
      user: userId,
      action: "UPSCALE",
      code: 21,
      mj: ids.mjRunning,
      prompt: "U1",
      submit: now - 20 * SECOND,
      finish: 0,
      status: "IN_PROGRESS",
      progress: "45%",
      channel: ids.channel,
    });
    // Older than the default 30 days.
    drawing.run({
      ...base,
      user: userId,
      action: "BLEND",
      mj: ids.mjOld,
      prompt: "",
      submit: now - 40 * DAY,
      finish: now - 40 * DAY + 5 * SECOND,
      status: "FAILURE",
      progress: "100%",
      fail: "Banned prompt detected",
      channel: ids.channel,
    });
    drawing.run({
      ...base,
      user: 1,
      action: "DESCRIBE",
      mj: ids.mjRoot,
      prompt: "root's own",
      submit: now - 60 * SECOND,
      finish: now - 30 * SECOND,
      status: "SUCCESS",
      progress: "100%",
      channel: ids.channel2,
    });

    const task = db.prepare(
      `INSERT INTO tasks (user_id, task_id, platform, action, status, progress, submit_time, finish_time, fail_reason, channel_id, quota, data,
         token_id, request_id)
       VALUES (@user, @id, @platform, @action, @status, @progress, @submit, @finish, @fail, @channel, 1000, @data, 3, @req)`,
    );
    const t = { fail: "", req: `req-${tag}`, channel: ids.channel };
    task.run({
      ...t,
      user: userId,
      id: ids.music,
      platform: "suno",
      action: "MUSIC",
      status: "SUCCESS",
      progress: "100%",
      submit: now - 30 * SECOND,
      finish: now - 5 * SECOND,
      data: JSON.stringify([{ audio_url: "https://cdn.vendor-suno.example/a.mp3" }]),
    });
    task.run({
      ...t,
      user: userId,
      id: ids.video,
      platform: "openai-video",
      action: "VIDEO",
      status: "FAILURE",
      progress: "100%",
      submit: now - 10 * SECOND,
      finish: now - 2 * SECOND,
      fail: "content policy violation: the prompt was rejected by the moderation system",
      data: "{}",
      channel: ids.channel2,
    });
    // Before midnight today.
    task.run({
      ...t,
      user: userId,
      id: ids.taskOld,
      platform: "suno",
      action: "LYRICS",
      status: "SUCCESS",
      progress: "100%",
      submit: now - 2 * DAY,
      finish: now - 2 * DAY + 5 * SECOND,
      data: "{}",
    });
  } finally {
    db.close();
  }
  return ids;
}

/** A table's rows, or on a phone its cards. */
const rows = (page: Page, list: string): Locator =>
  page
    .getByRole("table", { name: list })
    .or(page.getByRole("list", { name: list }))
    .locator("[data-row-id]");
const row = (page: Page, list: string, id: string) => rows(page, list).filter({ hasText: id });
const headings = async (page: Page, list: string) =>
  (await page.getByRole("table", { name: list }).locator("thead th").allInnerTexts()).map((h) => h.trim());

async function toggleTheme(page: Page, scheme: "dark" | "light") {
  await page.getByRole("button", { name: "切换明暗主题" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", scheme);
}

/** `{name}-light`, `{name}-dark`, then `{name}-390` with the list as cards and nothing wider than the phone. */
async function shots(page: Page, list: string, name: string) {
  await shot(page, `${name}-light`);
  await toggleTheme(page, "dark");
  await shot(page, `${name}-dark`);
  await toggleTheme(page, "light");
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole("list", { name: list })).toBeVisible();
  await expectFits(page, 390);
  await shot(page, `${name}-390`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

test("a user reaches both logs from the menu and reads, filters and opens only their own tasks", async ({ page }) => {
  await newUserSession(page, "mj");
  const userId: number = await page.evaluate(() => JSON.parse(localStorage.getItem("user") ?? "{}").id);
  const ids = await seed(userId);
  const drawings = "绘图任务列表";

  // The flags are on: both entries are in the menu.
  await page.goto("/token");
  await sideMenu(page).getByRole("link", { name: "绘图" }).click();
  await expect(page).toHaveURL(/\/midjourney$/);
  await expect(page.getByRole("heading", { name: "绘图日志" })).toBeVisible();
  // No admin notice, channel filter or column for a user.
  await expect(page.getByText(NOTIFY_OFF)).toHaveCount(0);
  await expect(page.getByLabel("渠道 ID")).toHaveCount(0);
  expect(await headings(page, drawings)).toEqual([
    "提交时间",
    "类型",
    "任务ID",
    "提交结果",
    "任务状态",
    "进度",
    "花费时间",
    "结果图片",
    "Prompt",
    "PromptEn",
    "失败原因",
  ]);
  // The last 30 days by default: the old task and root's are not listed.
  await expect(rows(page, drawings)).toHaveCount(2);
  const done = row(page, drawings, ids.mjDone);
  await expect(done).toContainText("绘图");
  await expect(done).toContainText("已提交");
  await expect(done).toContainText("成功");
  await expect(done.locator('[data-spend="red"]')).toHaveText("95.0 秒");
  const running = row(page, drawings, ids.mjRunning);
  await expect(running).toContainText("放大");
  await expect(running).toContainText("等待中");
  await expect(running).toContainText("执行中");
  await expect(running).toContainText("45%");
  await expect(running.locator('[data-spend="green"]')).toHaveText(/^\d+\.\d 秒$/);
  await expect(running.getByText("无").first()).toBeVisible();
  // The vendor's address is nowhere in the page.
  expect(await page.content()).not.toContain("vendor-mj.example");

  // 查看图片: the image comes through our proxy.
  await done.getByRole("button", { name: "查看图片" }).click();
  const preview = page.getByRole("dialog", { name: "结果图片" });
  await expect(preview.getByRole("img", { name: `绘图结果 ${ids.mjDone}` })).toHaveAttribute("src", `/mj/image/${ids.mjDone}`);
  await page.keyboard.press("Escape");
  await expect(preview).toHaveCount(0);

  // The prompt is cut to one line; a click shows all of it, with a copy button.
  await done.getByRole("button", { name: /^查看Prompt：/ }).click();
  const prompt = page.getByRole("dialog", { name: "Prompt" });
  await expect(prompt).toContainText(LONG_PROMPT);
  await expect(prompt.getByRole("button", { name: "复制Prompt" })).toBeVisible();
  await expect(page.locator(".mantine-Modal-content")).toHaveCSS("opacity", "1");
  await shot(page, "tasks-prompt-dialog");
  await page.keyboard.press("Escape");
  await expect(prompt).toHaveCount(0);

  // The task id filter goes to the URL; 重置 brings the default range back.
  await page.getByLabel("任务 ID").fill(ids.mjRunning);
  await page.getByRole("button", { name: "查询" }).click();
  await expect(page).toHaveURL(new RegExp(`mj_id=${ids.mjRunning}`));
  await expect(rows(page, drawings)).toHaveCount(1);
  await expect(row(page, drawings, ids.mjRunning)).toBeVisible();
  // An emptied start time is no bound: the 40-day-old task appears, with its failure reason.
  await page.getByLabel("任务 ID").fill("");
  await page.getByLabel("起始时间").fill("");
  await page.getByRole("button", { name: "查询" }).click();
  await expect(page).toHaveURL(/start_timestamp=0/);
  await expect(rows(page, drawings)).toHaveCount(3);
  const old = row(page, drawings, ids.mjOld);
  await expect(old).toContainText("图混合");
  await expect(old).toContainText("失败");
  await old.getByRole("button", { name: /^查看失败原因/ }).click();
  await expect(page.getByRole("dialog", { name: "失败原因" })).toContainText("Banned prompt detected");
  await page.keyboard.press("Escape");
  await page.getByRole("button", { name: "重置" }).click();
  await expect(page).not.toHaveURL(/start_timestamp=|mj_id=/);
  await expect(rows(page, drawings)).toHaveCount(2);
  await expect(page.getByLabel("起始时间")).not.toHaveValue("");
  await shots(page, drawings, "tasks-drawing-user");

  // The async tasks: from midnight today by default.
  const tasks = "异步任务列表";
  await sideMenu(page).getByRole("link", { name: "异步任务" }).click();
  await expect(page).toHaveURL(/\/task$/);
  await expect(page.getByRole("heading", { name: "任务日志" })).toBeVisible();
  await expect(page.getByLabel("起始时间")).toHaveValue(/ 00:00(:00)?$/);
  expect(await headings(page, tasks)).toEqual([
    "提交时间",
    "结束时间",
    "进度",
    "花费时间",
    "平台",
    "类型",
    "任务ID",
    "任务状态",
    "失败原因",
  ]);
  await expect(rows(page, tasks)).toHaveCount(2);
  const music = row(page, tasks, ids.music);
  await expect(music).toContainText("Suno");
  await expect(music).toContainText("生成音乐");
  await expect(music).toContainText("成功");
  await expect(music.locator('[data-spend="green"]')).toHaveText("25.0 秒");
  const video = row(page, tasks, ids.video);
  await expect(video).toContainText("视频");
  await expect(video).toContainText("生成视频");
  await expect(video).toContainText("失败");
  await video.getByRole("button", { name: /^查看失败原因/ }).click();
  await expect(page.getByRole("dialog", { name: "失败原因" })).toContainText("rejected by the moderation system");
  await page.keyboard.press("Escape");
  expect(await page.content()).not.toContain("vendor-suno.example");
  await page.getByLabel("任务 ID").fill(ids.video);
  await page.getByRole("button", { name: "查询" }).click();
  await expect(page).toHaveURL(new RegExp(`task_id=${ids.video}`));
  await expect(rows(page, tasks)).toHaveCount(1);
  await page.getByRole("button", { name: "重置" }).click();
  await expect(rows(page, tasks)).toHaveCount(2);
  await shots(page, tasks, "tasks-async-user");

  // The API under both spellings of the path, the caller's rows only.
  for (const url of ["/api/mj/self/", "/api/mj/self"]) {
    const body = await (await page.request.get(`${url}?start_timestamp=0`, { headers: { "New-Api-User": String(userId) } })).json();
    expect(body.data.items.map((i: { mj_id: string }) => i.mj_id)).toEqual([ids.mjOld, ids.mjRunning, ids.mjDone]);
  }
});

test("root reads every user's tasks with the channel filter and is told the callback is off", async ({ browser }) => {
  const userContext = await browser.newContext();
  const userPage = await userContext.newPage();
  await newUserSession(userPage, "mr");
  const userId: number = await userPage.evaluate(() => JSON.parse(localStorage.getItem("user") ?? "{}").id);
  await userContext.close();
  const ids = await seed(userId);

  const context = await browser.newContext({ storageState: ROOT_STATE, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  try {
    const drawings = "绘图任务列表";
    await page.goto("/midjourney");
    await expect(page.getByRole("alert").filter({ hasText: NOTIFY_OFF })).toBeVisible();
    expect(await headings(page, drawings)).toContain("渠道");
    // The user's channel: their two recent drawings, not root's.
    await page.getByLabel("渠道 ID").fill(String(ids.channel));
    await page.getByRole("button", { name: "查询" }).click();
    await expect(page).toHaveURL(new RegExp(`channel_id=${ids.channel}`));
    await expect(rows(page, drawings)).toHaveCount(2);
    await expect(row(page, drawings, ids.mjDone).getByText(String(ids.channel), { exact: true })).toBeVisible();
    // Root's own drawing on the next channel.
    await page.getByLabel("渠道 ID").fill(String(ids.channel2));
    await page.getByRole("button", { name: "查询" }).click();
    await expect(rows(page, drawings)).toHaveCount(1);
    await expect(row(page, drawings, ids.mjRoot)).toContainText("图生文");
    await page.getByLabel("渠道 ID").fill(String(ids.channel));
    await page.getByRole("button", { name: "查询" }).click();
    await expect(rows(page, drawings)).toHaveCount(2);
    await shots(page, drawings, "tasks-drawing-admin");

    // With the callback on, the notice goes.
    await setOption(root, "MjNotifyEnabled", "true");
    await page.reload();
    await expect(page.getByRole("heading", { name: "绘图日志" })).toBeVisible();
    await expect(page.getByText(NOTIFY_OFF)).toHaveCount(0);
    await setOption(root, "MjNotifyEnabled", "false");

    const tasks = "异步任务列表";
    await page.goto(`/task?channel_id=${ids.channel2}`);
    await expect(page.getByLabel("渠道 ID")).toHaveValue(String(ids.channel2));
    expect(await headings(page, tasks)).toEqual([
      "提交时间",
      "结束时间",
      "进度",
      "花费时间",
      "渠道",
      "平台",
      "类型",
      "任务ID",
      "任务状态",
      "失败原因",
    ]);
    await expect(rows(page, tasks)).toHaveCount(1);
    await expect(row(page, tasks, ids.video)).toContainText(String(ids.channel2));
    await shots(page, tasks, "tasks-async-admin");
  } finally {
    await context.close();
  }
});

// The whole path on the `npm start` server: a drawing submitted to the relay workers (with a mode
// prefix and the key in mj-api-secret) is charged, polled by the console process's poller until
// the proxy says SUCCESS, fetched through the relay, and listed on 绘图日志 as 成功.
test("a drawing submitted through the relay is polled to its end and listed", async ({ browser }) => {
  const { startMidjourneyMock } = await import("../mocks/midjourney");
  const mj = await startMidjourneyMock("e2e-mj-secret");
  const name = uniqueName("mj");
  let priceTable: string | null = null;
  try {
    const call = async (method: string, url: string, data?: unknown) => {
      const body = await (await root.fetch(url, { method, data })).json();
      expect(body.success, `${method} ${url}: ${body.message}`).toBe(true);
      return body.data;
    };
    await call("POST", "/api/channel/", { name, type: 2, key: mj.secret, base_url: mj.url, models: "mj_imagine", group: "default" });
    // Other specs share the server and may have replaced the price table: price the model here.
    const listed: { key: string; value: string }[] = await call("GET", "/api/option/");
    priceTable = listed.find((o) => o.key === "ModelPrice")?.value ?? "{}";
    await setOption(root, "ModelPrice", JSON.stringify({ ...JSON.parse(priceTable), mj_imagine: 0.1 }));
    const token = await call("POST", "/api/token/", { name, remain_quota: 0, unlimited_quota: true, expired_time: -1 });
    const key = String(token.key).startsWith("sk-") ? token.key : `sk-${token.key}`;
    const before = (await call("GET", "/api/user/self")).quota as number;

    const submitted = await root.post("/fast/mj/submit/imagine", {
      headers: { "mj-api-secret": key },
      data: { prompt: `${name} a red kite over the sea` },
    });
    expect(submitted.status()).toBe(200);
    const answer = await submitted.json();
    expect(answer).toMatchObject({ code: 1 });
    const id = String(answer.result);
    // ModelPrice mj_imagine 0.1 × 500 000, taken at the submit.
    await expect.poll(async () => before - ((await call("GET", "/api/user/self")).quota as number)).toBe(50_000);

    // The poller runs every 15 s; the mock moves one state per poll.
    await expect
      .poll(async () => (await (await root.get(`/mj/task/${id}/fetch`, { headers: { authorization: `Bearer ${key}` } })).json()).status, {
        timeout: 100_000,
        intervals: [3_000],
      })
      .toBe("SUCCESS");

    const context = await browser.newContext({ storageState: ROOT_STATE, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    try {
      await page.goto(`/midjourney?mj_id=${id}`);
      const drawings = "绘图任务列表";
      await expect(rows(page, drawings)).toHaveCount(1);
      await expect(row(page, drawings, id)).toContainText("成功");
      await expect(row(page, drawings, id)).toContainText("100%");
    } finally {
      await context.close();
    }
  } finally {
    if (priceTable !== null) await setOption(root, "ModelPrice", priceTable);
    await mj.close();
  }
});
