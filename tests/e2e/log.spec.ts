// The usage log (spec §2 Log page, §3 Log entry and user lookup, §9 colours and default range)
// through the real console: a fresh user's requests go through the real relay to a mock upstream,
// the user reads (only) their own rows and checks a charge by hand, and root reads the all-users
// log with filters in the URL and looks the user up. Screenshots in light, dark and at 390 px.
import type { APIRequestContext, Locator } from "@playwright/test";
import { startOpenAIMock } from "../mocks/openai-upstream";
import { ROOT_STATE } from "./env";
import { expect, newUserSession, type Page, shot, test, uniqueName } from "./support";

test.use({ storageState: ROOT_STATE });
// Each test registers users and sends requests through the relay before it reads the page.
test.describe.configure({ timeout: 180_000 });

type Upstream = Awaited<ReturnType<typeof startOpenAIMock>>;

async function call(request: APIRequestContext, userId: number, method: string, url: string, data?: unknown) {
  const res = await request.fetch(url, { method, headers: { "New-Api-User": String(userId) }, data });
  const body = await res.json();
  expect(body.success, `${method} ${url}: ${body.message}`).toBe(true);
  return body.data;
}

/** Adds `entries` to a JSON map option, keeping what other specs put there. */
async function mergeOption(request: APIRequestContext, key: string, entries: Record<string, number>) {
  const options: { key: string; value: string }[] = await call(request, 1, "GET", "/api/option/");
  const current = JSON.parse(options.find((o) => o.key === key)?.value || "{}");
  await call(request, 1, "PUT", "/api/option/", { key, value: JSON.stringify({ ...current, ...entries }) });
}

let upstream: Upstream;
let model: string;
/** Priced at 0.075: a ratio two decimals would round to 0.07. */
let cheapModel: string;
let channelId: number;

test.beforeAll(async ({ browser }) => {
  upstream = await startOpenAIMock();
  // 100 prompt and 20 completion tokens at ratio 2.5, completion ratio 4: (100 + 20 × 4) × 2.5 = 450.
  upstream.setBehaviour({ usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } });
  model = uniqueName("e2e-log-");
  cheapModel = `${model}-cheap`;
  const context = await browser.newContext({ storageState: ROOT_STATE });
  const request = context.request;
  await call(request, 1, "POST", "/api/channel/", {
    name: model,
    type: 1,
    key: "sk-up",
    base_url: upstream.url,
    models: `${model},${cheapModel}`,
    group: "default",
  });
  const found = await call(request, 1, "GET", `/api/channel/search?keyword=${model}`);
  channelId = (found.items ?? found)[0].id;
  await mergeOption(request, "ModelRatio", { [model]: 2.5, [cheapModel]: 0.075 });
  await mergeOption(request, "CompletionRatio", { [model]: 4 });
  await context.close();
});

test.afterAll(async () => {
  await upstream?.close();
});

/** A fresh user in their own browser context, with a key that made one plain and one streamed request. */
async function userWithRequests(page: Page) {
  const { username } = await newUserSession(page, "lg");
  const id: number = await page.evaluate(() => JSON.parse(localStorage.getItem("user") ?? "{}").id);
  // Root gives the user a balance (this also writes an admin row, type 3, to the user's log).
  const root = await page.context().browser()!.newContext({ storageState: ROOT_STATE });
  await call(root.request, 1, "PUT", "/api/user/", { id, quota: 1_000_000, original_quota: 0 });
  await root.close();
  const tokenName = uniqueName("key-");
  const token = await call(page.request, id, "POST", "/api/token/", {
    name: tokenName,
    remain_quota: 0,
    unlimited_quota: true,
    expired_time: -1,
  });
  const key = String(token.key).startsWith("sk-") ? token.key : `sk-${token.key}`;
  for (const stream of [false, true]) {
    const res = await page.request.post("/v1/chat/completions", {
      headers: { authorization: `Bearer ${key}` },
      data: { model, stream, messages: [{ role: "user", content: "hi" }] },
    });
    expect(res.status()).toBe(200);
    await res.body();
  }
  // Consume rows are written in batches: wait until both are there.
  await expect.poll(async () => (await call(page.request, id, "GET", `/api/log/self/?model_name=${model}`)).total).toBe(2);
  return { username, id, tokenName };
}

/** Expands a row (again until the page has hydrated and the click takes). */
async function expand(row: Locator) {
  await expect(async () => {
    const button = row.getByRole("button", { name: /展开详情|收起详情/ });
    if ((await button.getAttribute("aria-expanded")) !== "true") await button.click();
    await expect(button).toHaveAttribute("aria-expanded", "true", { timeout: 1000 });
  }).toPass();
}

const table = (page: Page) => page.getByRole("table", { name: "日志列表" });
const rows = (page: Page) => table(page).locator("tbody tr[data-row-id]");

test("a user sees only their own rows, filters them in the URL and checks a charge by hand", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const { tokenName } = await userWithRequests(page);

  await page.goto("/log");
  await expect(page.getByRole("heading", { name: "使用日志" })).toBeVisible();
  // No admin columns, filters or other users' rows.
  const heads = await table(page).locator("thead th").allInnerTexts();
  expect(heads.map((h) => h.trim()).filter(Boolean)).toEqual(["时间", "令牌", "类型", "模型", "用时/首字", "提示", "补全", "花费", "详情"]);
  await expect(page.getByLabel("渠道 ID")).toHaveCount(0);
  await expect(page.getByLabel("用户名称")).toHaveCount(0);
  // Two consumption rows of 450 quota each (and the sign-up row, when QuotaForNewUser is set).
  await expect(rows(page).filter({ hasText: model })).toHaveCount(2);
  await expect(page.getByText("消耗额度：$0.0018")).toBeVisible();
  await expect(page.getByText(/^RPM：2$/)).toBeVisible();
  await expect(page.getByText(/^TPM：240$/)).toBeVisible();
  // The default range (today → an hour ahead) is filled in.
  await expect(page.getByLabel("起始时间")).toHaveValue(/ 00:00(:00)?$/);

  // The streamed row carries the stream tag and a green first-token time; the plain one "非流".
  const streamed = rows(page).filter({ hasText: "流" }).filter({ hasNotText: "非流" }).first();
  await expect(streamed.getByText(/^\d+\.\d s$/)).toBeVisible();
  await expect(rows(page).filter({ hasText: "非流" })).toHaveCount(1);

  // Filters go to the URL; the token and model narrow the view.
  await page.getByLabel("模型名称").fill(model);
  await page.getByLabel("令牌名称").fill(tokenName);
  await page.getByRole("button", { name: "查询" }).click();
  await expect(page).toHaveURL(new RegExp(`model_name=${model}.*|token_name=${tokenName}`));
  await expect(page).toHaveURL(/start_timestamp=\d+/);
  await expect(rows(page)).toHaveCount(2);
  await page.getByLabel("模型名称").fill("no-such-model");
  await page.getByRole("button", { name: "查询" }).click();
  await expect(page.getByText("没有符合条件的日志")).toBeVisible();
  await expect(page.getByText("消耗额度：$0.00")).toBeVisible();
  await page.getByLabel("模型名称").fill(model);
  await page.getByRole("button", { name: "查询" }).click();
  await expect(rows(page)).toHaveCount(2);

  // Expanding a row writes the charge out.
  await expand(rows(page).first());
  const details = page.getByTestId("log-details");
  await expect(details).toBeVisible();
  await expect(details.getByText("模型倍率 2.5", { exact: true })).toBeVisible();
  await expect(details.getByText("补全倍率 4", { exact: true })).toBeVisible();
  await expect(details.getByText("(提示 100 + 补全 20 × 4) × 2.5 × 1 = 450")).toBeVisible();
  await expect(details.getByText("本条记录花费 450 额度（$0.000900）")).toBeVisible();
  await expect(details.getByText("输入价格 $5 / 1M tokens，补全价格 $20 / 1M tokens")).toBeVisible();
  // A user never sees the channels that were tried.
  await expect(details.getByText("使用渠道")).toHaveCount(0);
  await shot(page, "log-user-light");

  // Reset drops every filter from the URL and the form.
  await page.getByRole("button", { name: "重置" }).click();
  await expect(page).not.toHaveURL(/model_name=|token_name=|start_timestamp=/);
  await expect(page.getByLabel("模型名称")).toHaveValue("");
  await expect(page.getByLabel("令牌名称")).toHaveValue("");
  await expect(rows(page).filter({ hasText: model })).toHaveCount(2);

  // Another user's rows never show: a second user sees none of these.
  const other = await browser.newContext();
  const otherPage = await other.newPage();
  await newUserSession(otherPage, "lo");
  await otherPage.goto(`/log?model_name=${model}&start_timestamp=0&end_timestamp=0`);
  await expect(otherPage.getByText("没有符合条件的日志")).toBeVisible();
  await other.close();
  await context.close();
});

test("root reads the all-users log with filters in the URL, the channels a row used and the user lookup", async ({ page, browser }) => {
  const context = await browser.newContext();
  const userPage = await context.newPage();
  const { username } = await userWithRequests(userPage);
  await context.close();

  // A shared link: the filters come from the URL.
  await page.goto(`/log?username=${username}&model_name=${model}&type=2`);
  await expect(page.getByRole("heading", { name: "使用日志" })).toBeVisible();
  await expect(page.getByLabel("用户名称")).toHaveValue(username);
  await expect(page.getByLabel("模型名称")).toHaveValue(model);
  const heads = await table(page).locator("thead th").allInnerTexts();
  expect(heads.map((h) => h.trim()).filter(Boolean)).toEqual([
    "时间",
    "渠道",
    "用户",
    "令牌",
    "类型",
    "模型",
    "用时/首字",
    "提示",
    "补全",
    "花费",
    "重试",
    "详情",
  ]);
  await expect(rows(page)).toHaveCount(2);
  await expect(rows(page).first().getByText(String(channelId), { exact: true })).toBeVisible();
  await expect(page.getByText("消耗额度：$0.0018")).toBeVisible();

  // The channel filter: the right channel keeps both rows, another shows none.
  await page.getByLabel("渠道 ID").fill(String(channelId));
  await page.getByRole("button", { name: "查询" }).click();
  await expect(page).toHaveURL(new RegExp(`channel=${channelId}`));
  await expect(rows(page)).toHaveCount(2);
  await page.goto(`/log?username=${username}&channel=${channelId + 100000}`);
  await expect(page.getByText("没有符合条件的日志")).toBeVisible();
  // The type filter: the user has no top-ups, and one admin row (root set the balance).
  await page.goto(`/log?username=${username}&type=1`);
  await expect(page.getByText("没有符合条件的日志")).toBeVisible();
  await page.goto(`/log?username=${username}&type=3&start_timestamp=0`);
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).getByText("管理", { exact: true })).toBeVisible();
  await expect(page.getByRole("combobox", { name: "类型" })).toHaveValue("管理");

  await page.goto(`/log?username=${username}&model_name=${model}`);
  await expand(rows(page).first());
  const details = page.getByTestId("log-details");
  await expect(details.getByText("使用渠道")).toBeVisible();
  await expect(details.getByText("(提示 100 + 补全 20 × 4) × 2.5 × 1 = 450")).toBeVisible();
  await shot(page, "log-admin-light");

  // The user lookup.
  await rows(page).first().getByRole("button", { name: username }).click();
  const lookup = page.getByRole("dialog", { name: `用户信息：${username}` });
  await expect(lookup).toBeVisible();
  const info = lookup.getByRole("table", { name: "用户信息" });
  await expect(info.getByRole("row", { name: /用户名/ })).toContainText(username);
  await expect(info.getByRole("row", { name: /请求次数/ })).toContainText("2");
  await expect(info.getByRole("row", { name: /已用额度/ })).toContainText("$0.0018");
  await expect(info.getByRole("row", { name: /分组/ })).toContainText("default");
  await shot(page, "log-lookup");
  await page.keyboard.press("Escape");

  // Dark mode and a phone.
  await page.getByRole("button", { name: "切换明暗主题", exact: true }).click();
  await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
  await shot(page, "log-admin-dark");
  await page.getByRole("button", { name: "切换明暗主题", exact: true }).click();
  await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "light");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(page.getByRole("heading", { name: "使用日志" })).toBeVisible();
  await shot(page, "log-narrow");
});

// Issue 20.19: the row and its expanded billing give the same ratio (0.075, not 0.07 in one and
// 0.075 in the other), and the stat badge says what it sums for the type chosen.
test("the row's ratio is its breakdown's, and the stat badge fits the type filter", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await newUserSession(page, "lr");
  const id: number = await page.evaluate(() => JSON.parse(localStorage.getItem("user") ?? "{}").id);
  const root = await browser.newContext({ storageState: ROOT_STATE });
  await call(root.request, 1, "PUT", "/api/user/", { id, quota: 1_000_000, original_quota: 0 });
  await root.close();
  const token = await call(page.request, id, "POST", "/api/token/", {
    name: uniqueName("key-"),
    remain_quota: 0,
    unlimited_quota: true,
    expired_time: -1,
  });
  const key = String(token.key).startsWith("sk-") ? token.key : `sk-${token.key}`;
  const res = await page.request.post("/v1/chat/completions", {
    headers: { authorization: `Bearer ${key}` },
    data: { model: cheapModel, messages: [{ role: "user", content: "hi" }] },
  });
  expect(res.status()).toBe(200);
  await expect.poll(async () => (await call(page.request, id, "GET", `/api/log/self/?model_name=${cheapModel}`)).total).toBe(1);

  await page.goto(`/log?model_name=${cheapModel}`);
  const row = rows(page).first();
  await expect(row).toContainText("模型倍率 0.075，补全倍率 1，分组倍率 1");
  await expand(row);
  await expect(page.getByTestId("log-details").getByText("模型倍率 0.075", { exact: true })).toBeVisible();
  const stats = page.locator('[aria-label="统计"]');
  await expect(stats.getByText(/^消耗额度：/)).toBeVisible();

  // Top-ups sum top-ups; admin rows carry no quota, so no sum is shown for them.
  await page.goto("/log?type=1");
  await expect(stats.getByText(/^充值额度：/)).toBeVisible();
  await expect(page.getByText(/消耗额度/)).toHaveCount(0);
  await shot(page, "log-topup-light");
  await page.getByRole("button", { name: "切换明暗主题" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
  await shot(page, "log-topup-dark");
  await page.getByRole("button", { name: "切换明暗主题" }).click();
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(stats.getByText(/^充值额度：/)).toBeVisible();
  await shot(page, "log-topup-390");
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/log?type=3");
  await expect(page.getByRole("heading", { name: "使用日志" })).toBeVisible();
  await expect(page.getByText(/额度：/)).toHaveCount(0);
  await expect(stats.getByText(/^RPM：/)).toBeVisible();
  await context.close();
});

test("a call billed at its bounds shows 用量异常 with the upstream's numbers in the expanded row", async ({ page, browser }) => {
  // An upstream answering an absurd completion count (issue 20.2): billed at max_tokens (30).
  const absurd = await startOpenAIMock();
  absurd.setBehaviour({ usage: { prompt_tokens: 10, completion_tokens: 1e12, total_tokens: 1e12 + 10 } });
  const absurdModel = uniqueName("e2e-anomaly-");
  await call(page.request, 1, "POST", "/api/channel/", {
    name: absurdModel,
    type: 1,
    key: "sk-up",
    base_url: absurd.url,
    models: absurdModel,
    group: "default",
  });
  await mergeOption(page.request, "ModelRatio", { [absurdModel]: 1 });
  await mergeOption(page.request, "CompletionRatio", { [absurdModel]: 1 });
  const context = await browser.newContext();
  const userPage = await context.newPage();
  const { username } = await newUserSession(userPage, "la");
  const id: number = await userPage.evaluate(() => JSON.parse(localStorage.getItem("user") ?? "{}").id);
  await call(page.request, 1, "PUT", "/api/user/", { id, quota: 1_000_000, original_quota: 0 });
  const token = await call(userPage.request, id, "POST", "/api/token/", {
    name: uniqueName("key-"),
    remain_quota: 0,
    unlimited_quota: true,
    expired_time: -1,
  });
  const key = String(token.key).startsWith("sk-") ? token.key : `sk-${token.key}`;
  const res = await userPage.request.post("/v1/chat/completions", {
    headers: { authorization: `Bearer ${key}` },
    data: { model: absurdModel, max_tokens: 30, messages: [{ role: "user", content: "hi" }] },
  });
  expect(res.status()).toBe(200);
  await context.close();
  await absurd.close();

  await expect
    .poll(async () => (await call(page.request, 1, "GET", `/api/log/?username=${username}&model_name=${absurdModel}`)).total)
    .toBe(1);
  await page.goto(`/log?username=${username}&model_name=${absurdModel}`);
  await expect(rows(page)).toHaveCount(1);
  await expand(rows(page).first());
  const details = page.getByTestId("log-details");
  await expect(details.getByText("用量异常")).toBeVisible();
  await expect(
    details.getByText("上游报告 提示 10 / 补全 1000000000000 tokens，超出本次请求可能的用量，已按 提示 10 / 补全 30 计费"),
  ).toBeVisible();
  await expect(details.getByText("(提示 10 + 补全 30 × 1) × 1 × 1 = 40")).toBeVisible();
  await shot(page, "log-anomaly-light");
  await page.getByRole("button", { name: "切换明暗主题", exact: true }).click();
  await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
  await shot(page, "log-anomaly-dark");
  await page.getByRole("button", { name: "切换明暗主题", exact: true }).click();
  await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "light");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  // A phone shows a card per row (components/data/paged-table.tsx), with the same 展开详情.
  await expand(page.getByRole("list", { name: "日志列表" }).getByRole("listitem").first());
  await expect(page.getByTestId("log-details").getByText("用量异常")).toBeVisible();
  await shot(page, "log-anomaly-narrow");
});
