// The data dashboard (spec §2 /detail, issue 12): usage made through the real relay (against the
// mock OpenAI upstream) shows up in the charts of the user who made it, and only theirs; an admin
// sees everyone's, one user's, and the by-user view; with DataExportEnabled off the menu entry
// goes and the page says so. Screenshots in light, dark and at 390 px.
import type { APIRequestContext } from "@playwright/test";
import { type OpenAIMock, startOpenAIMock } from "../mocks/openai-upstream";
import { ROOT_STATE } from "./env";
import { expect, expectFits, newUserSession, type Page, shot, sideMenu, test, uniqueName } from "./support";

const AS_ROOT = { "New-Api-User": "1" };

let upstream: OpenAIMock;
let root: APIRequestContext;
const stamp = Date.now().toString(36);
const MODEL_A = `e2e-detail-a-${stamp}`;
const MODEL_B = `e2e-detail-b-${stamp}`;

async function call(api: APIRequestContext, method: string, url: string, data?: unknown, headers: Record<string, string> = AS_ROOT) {
  const r = await api.fetch(url, { method, headers, data });
  const body = await r.json();
  expect(body.success, `${method} ${url}: ${body.message}`).toBe(true);
  return body.data;
}

const setOption = (key: string, value: string) => call(root, "PUT", "/api/option/", { key, value });

test.beforeAll(async ({ playwright, baseURL }) => {
  upstream = await startOpenAIMock();
  upstream.setBehaviour({ usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 } });
  root = await playwright.request.newContext({ baseURL });
  const login = await root.post("/api/user/login", { data: { username: "root", password: "123456" } });
  expect(login.status()).toBe(200);
  await call(root, "POST", "/api/channel/", {
    name: `detail-${stamp}`,
    type: 1,
    key: "sk-up",
    base_url: upstream.url,
    models: `${MODEL_A},${MODEL_B}`,
    group: "default",
  });
  // Other specs share the server: add these models to the ratios rather than replace them.
  const options: { key: string; value: string }[] = await call(root, "GET", "/api/option/");
  const ratios = JSON.parse(options.find((o) => o.key === "ModelRatio")?.value || "{}");
  await setOption("ModelRatio", JSON.stringify({ ...ratios, [MODEL_A]: 1, [MODEL_B]: 2 }));
  await setOption("DataExportEnabled", "true");
  await setOption("DataExportInterval", "5");
});

test.afterAll(async () => {
  await setOption("DataExportEnabled", "true");
  await root.dispose();
  await upstream.close();
});

/** Spends through the relay with a fresh key of the session behind `api`. */
async function spend(api: APIRequestContext, headers: Record<string, string>, calls: [string, number][]) {
  const token = await call(
    api,
    "POST",
    "/api/token/",
    { name: uniqueName("dk"), remain_quota: 0, unlimited_quota: true, expired_time: -1 },
    headers,
  );
  const key = String(token.key);
  for (const [model, times] of calls)
    for (let i = 0; i < times; i++) {
      const r = await api.post("/v1/chat/completions", {
        headers: { authorization: `Bearer ${key.startsWith("sk-") ? key : `sk-${key}`}` },
        data: { model, messages: [{ role: "user", content: "hi" }] },
      });
      expect(r.status()).toBe(200);
    }
}

/** A user with quota (a redemption code from root) who spent 3 calls on A and 2 on B. */
async function userWithUsage(page: Page) {
  const { username } = await newUserSession(page, "dt");
  const self = await page.evaluate(() => JSON.parse(localStorage.getItem("user") ?? "{}") as { id: number });
  const headers = { "New-Api-User": String(self.id) };
  const codes: string[] = await call(root, "POST", "/api/redemption/", { name: `dt-${stamp}`, quota: 5_000_000, count: 1 });
  await call(page.request, "POST", "/api/user/topup", { key: codes[0] }, headers);
  await spend(page.request, headers, [
    [MODEL_A, 3],
    [MODEL_B, 2],
  ]);
  // Usage is written by the relay's ledger within a moment.
  await expect
    .poll(async () => {
      const now = Math.floor(Date.now() / 1000);
      const rows = await call(
        page.request,
        "GET",
        `/api/data/self/?start_timestamp=${now - 3600}&end_timestamp=${now + 3600}`,
        undefined,
        headers,
      );
      return rows.reduce((s: number, r: { count: number }) => s + r.count, 0);
    })
    .toBe(5);
  return { username, headers };
}

const figure = (page: Page, name: string) => page.getByRole("figure", { name });
/** The share chart's legend entries. */
const shares = (page: Page, by: "模型" | "用户") =>
  figure(page, `额度占比（按${by}）`).getByRole("list", { name: "占比图例" }).getByRole("listitem");
/** Bars drawn with a height (a period without usage has an empty one). */
const drawnBars = (page: Page, name: string) =>
  figure(page, name)
    .locator(".recharts-bar-rectangle")
    .evaluateAll((els) => els.filter((e) => e.getBoundingClientRect().height > 0).length);
const stat = (page: Page, label: string) => page.getByTestId(`stat-${label}`);

test("a user sees their own usage by model, and the granularity and range live in the URL", async ({ page }) => {
  // Registration, a top-up and five relayed calls before the page: slow on a shared two-core machine.
  test.setTimeout(180_000);
  const { username } = await userWithUsage(page);
  await page.goto("/token");
  await sideMenu(page).getByRole("link", { name: "数据看板" }).click();
  await expect(page).toHaveURL(/\/detail$/);
  await expect(page.getByRole("heading", { name: "数据看板" })).toBeVisible();
  await expect(stat(page, "请求次数")).toHaveText("5");
  await expect(stat(page, "Token 用量")).toHaveText("750");
  // Ratio 1 and 2 at 150 tokens: 3 × 150 + 2 × 300 = 1 050 quota = $0.0021.
  await expect(stat(page, "消耗额度")).toHaveText("$0.0021");
  for (const name of ["额度消耗（按模型）", "额度占比（按模型）", "请求次数", "Token 用量"]) await expect(figure(page, name)).toBeVisible();
  await expect.poll(() => drawnBars(page, "额度消耗（按模型）")).toBeGreaterThan(0);
  await expect.poll(() => drawnBars(page, "请求次数")).toBeGreaterThan(0);
  await expect(shares(page, "模型")).toHaveText([new RegExp(`^${MODEL_B}\\$0\\.0012$`), new RegExp(`^${MODEL_A}\\$0\\.0009$`)]);
  // An ordinary user has no user filter and no by-user view.
  await expect(page.getByLabel("用户名称")).toHaveCount(0);
  await expect(page.getByText("按用户")).toHaveCount(0);
  await shot(page, "detail-user");

  await page.getByText("天", { exact: true }).click();
  await expect(page).toHaveURL(/granularity=day/);
  await expect(stat(page, "请求次数")).toHaveText("5");

  // A range before the usage: nothing; the range is in the URL.
  await page.getByLabel("起始时间").fill("2020-01-01T00:00");
  await page.getByLabel("结束时间").fill("2020-01-02T00:00");
  await page.getByRole("button", { name: "查询" }).click();
  await expect(page).toHaveURL(/start_timestamp=1577808000&end_timestamp=1577894400/);
  await expect(page.getByText("所选时间范围内没有用量数据")).toBeVisible();
  await expect(stat(page, "请求次数")).toHaveText("0");

  // A range too wide is refused with the API's message.
  await page.goto("/detail?start_timestamp=1577808000&end_timestamp=1677808000");
  await expect(page.getByText("时间跨度不能超过 1 个月")).toBeVisible();
  expect(username).toBeTruthy();
});

test.describe("as root", () => {
  test.use({ storageState: ROOT_STATE });

  test("an admin sees everyone's usage, one user's, and by user", async ({ page, browser }) => {
    test.setTimeout(180_000);
    const other = await browser.newPage();
    const { username } = await userWithUsage(other);
    await other.close();
    await spend(root, AS_ROOT, [[MODEL_A, 2]]);

    await page.goto("/detail");
    await expect(page.getByRole("heading", { name: "数据看板" })).toBeVisible();
    await expect(shares(page, "模型").filter({ hasText: MODEL_A })).toBeVisible();

    await page.getByLabel("用户名称").fill(username);
    await page.getByRole("button", { name: "查询" }).click();
    await expect(page).toHaveURL(new RegExp(`username=${username}`));
    await expect(stat(page, "请求次数")).toHaveText("5");

    await page.getByText("按用户", { exact: true }).click();
    await expect(page).toHaveURL(/by=user/);
    await expect(shares(page, "用户")).toHaveText([new RegExp(`^${username}`)]);

    await page.getByLabel("用户名称").fill("");
    await page.getByRole("button", { name: "查询" }).click();
    await expect(page).not.toHaveURL(/username=/);
    await expect(shares(page, "用户").filter({ hasText: username })).toBeVisible();
    await expect(shares(page, "用户").filter({ hasText: /^root/ })).toBeVisible();
    await expect.poll(() => drawnBars(page, "额度消耗（按用户）")).toBeGreaterThan(0);
    await shot(page, "detail-admin-by-user");

    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    await shot(page, "detail-admin-dark");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "light");

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/detail?by=user");
    await expect(figure(page, "额度消耗（按用户）")).toBeVisible();
    await expectFits(page, 390);
    await shot(page, "detail-admin-narrow");
  });

  test("with DataExportEnabled off the menu entry goes and the page says so", async ({ page }) => {
    await setOption("DataExportEnabled", "false");
    try {
      await page.goto("/token");
      await expect(sideMenu(page).getByRole("link", { name: "日志", exact: true })).toBeVisible();
      await expect(sideMenu(page).getByRole("link", { name: "数据看板" })).toHaveCount(0);
      await page.goto("/detail");
      await expect(page.getByText("数据看板未开启")).toBeVisible();
    } finally {
      await setOption("DataExportEnabled", "true");
    }
    await page.goto("/token");
    await expect(sideMenu(page).getByRole("link", { name: "数据看板" })).toBeVisible();
  });
});
