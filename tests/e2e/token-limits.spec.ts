// A key's own limits (issue 26) through the real console: set in the token drawer's 限制 section,
// seen as used / limit in the list's popover (fetched only when it opens), edited and cleared; the
// settings cards of the routing and limit options saved and checked. Screenshots in light, dark
// and at 390 px. lib/limits/usage.ts is the placeholder here, so every use reads 0.
import type { APIRequestContext } from "@playwright/test";
import { E2E_BASE_URL, ROOT_STATE } from "./env";
import { closeDialog, expect, expectFits, newUserSession, type Page, shot, test, toast } from "./support";

const row = (page: Page, name: string) => page.getByRole("row").filter({ has: page.getByRole("cell", { name, exact: true }) });
const drawer = (page: Page) => page.getByRole("dialog");
const limitsSection = (page: Page) => drawer(page).getByRole("button", { name: /^限制/ });

/** One limit of the popover: its used / limit text on screen and its bar (empty at 0, so only attached). */
async function expectUsage(page: Page, label: string, text: string) {
  const popover = page.getByRole("dialog");
  await expect(popover.getByText(text, { exact: true })).toBeVisible();
  await expect(popover.getByRole("progressbar", { name: `${label} ${text}` })).toBeAttached();
}

async function pickPeriod(page: Page, label: string) {
  await drawer(page).getByRole("combobox", { name: "预算周期" }).click();
  await page.getByRole("option", { name: label, exact: true }).click();
}

test("a user sets a key's limits in the drawer, sees them against its use in the list, edits and clears them", async ({ page }) => {
  await newUserSession(page, "lim");
  const usageCalls: string[] = [];
  page.on("request", (r) => {
    if (/\/api\/token\/\d+\/limits$/.test(new URL(r.url()).pathname)) usageCalls.push(r.url());
  });

  await page.getByRole("button", { name: "添加令牌" }).click();
  await drawer(page).getByRole("textbox", { name: "名称", exact: true }).fill("limited");
  // Closed while nothing is set.
  await expect(limitsSection(page)).toHaveAttribute("aria-expanded", "false");
  await expect(drawer(page).getByLabel("每分钟请求数")).toBeHidden();
  await limitsSection(page).click();
  await drawer(page).getByLabel("每分钟请求数").fill("10");
  await drawer(page).getByLabel("每分钟 token 数").fill("100000");
  await drawer(page).getByLabel("并发请求数").fill("5");
  await drawer(page)
    .getByLabel(/^周期预算/)
    .fill("5000000");
  await expect(drawer(page).getByText("周期预算（等价金额：$10.00）")).toBeVisible();
  // A budget without a period is refused with the API's words, on the period.
  await drawer(page).getByRole("button", { name: "提交" }).click();
  await expect(drawer(page).getByText("设置了周期预算，请选择预算周期（每天、每周或每月）")).toBeVisible();
  await pickPeriod(page, "每天");
  await shot(page, "token-limits-drawer");
  await drawer(page).getByRole("button", { name: "提交" }).click();
  await expect(toast(page, "1个令牌创建成功，请在列表页面点击复制获取令牌！")).toBeVisible();

  // The list shows the key has limits; their use is fetched only when the popover opens.
  const button = row(page, "limited").getByRole("button", { name: "limited 的限制" });
  await expect(button).toHaveText("4 项限制");
  expect(usageCalls).toHaveLength(0);
  await button.click();
  const popover = page.getByRole("dialog");
  await expectUsage(page, "每分钟请求数", "0 / 10");
  await expectUsage(page, "每分钟 token 数", "0 / 100k");
  await expectUsage(page, "并发请求数", "0 / 5");
  await expectUsage(page, "周期预算", "$0.00 / $10.00");
  await expect(popover.getByText(/^每天 · 重置于 \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)).toBeVisible();
  expect(usageCalls).toHaveLength(1);
  await shot(page, "token-limits-popover");
  await closeDialog(page);

  // Edit: the section opens with the key's values; a new RPM and period show at the next opening.
  await row(page, "limited").getByRole("button", { name: "编辑" }).click();
  await expect(limitsSection(page)).toHaveAttribute("aria-expanded", "true");
  await expect(drawer(page).getByLabel("每分钟请求数")).toHaveValue("10");
  await expect(drawer(page).getByLabel("每分钟 token 数")).toHaveValue("100,000");
  await expect(drawer(page).getByRole("combobox", { name: "预算周期" })).toHaveValue("每天");
  await drawer(page).getByLabel("每分钟请求数").fill("20");
  await pickPeriod(page, "每周");
  await drawer(page).getByRole("button", { name: "提交" }).click();
  await expect(toast(page, "令牌更新成功！")).toBeVisible();
  await button.click();
  await expectUsage(page, "每分钟请求数", "0 / 20");
  await expect(page.getByRole("dialog").getByText(/^每周 · 重置于/)).toBeVisible();
  expect(usageCalls).toHaveLength(2);
  await closeDialog(page);

  // Clear: a period with no budget is refused; all 0 and 不重置 leave the key without limits.
  await row(page, "limited").getByRole("button", { name: "编辑" }).click();
  for (const label of ["每分钟请求数", "每分钟 token 数", "并发请求数"]) await drawer(page).getByLabel(label).fill("0");
  await drawer(page)
    .getByLabel(/^周期预算/)
    .fill("0");
  await drawer(page).getByRole("button", { name: "提交" }).click();
  await expect(drawer(page).getByText("选择了预算周期，请填写大于 0 的周期预算")).toBeVisible();
  await pickPeriod(page, "不重置");
  await drawer(page).getByRole("button", { name: "提交" }).click();
  await expect(toast(page, "令牌更新成功！")).toBeVisible();
  await expect(row(page, "limited").getByText("不限")).toBeVisible();
  await expect(row(page, "limited").getByRole("button", { name: "limited 的限制" })).toHaveCount(0);
  await row(page, "limited").getByRole("button", { name: "编辑" }).click();
  await expect(limitsSection(page)).toHaveAttribute("aria-expanded", "false");
  await page.getByRole("button", { name: "取消" }).click();
});

test("the limits look right in dark mode and on a 390 px phone", async ({ page }) => {
  await newUserSession(page, "limlook");
  await page.getByRole("button", { name: "添加令牌" }).click();
  await drawer(page).getByRole("textbox", { name: "名称", exact: true }).fill("look");
  await limitsSection(page).click();
  await drawer(page).getByLabel("每分钟请求数").fill("60");
  await drawer(page).getByLabel("并发请求数").fill("2");
  await drawer(page)
    .getByLabel(/^周期预算/)
    .fill("500000");
  await pickPeriod(page, "每月");
  await drawer(page).getByRole("button", { name: "提交" }).click();
  await expect(toast(page, "1个令牌创建成功，请在列表页面点击复制获取令牌！")).toBeVisible();

  await page.getByRole("button", { name: "切换明暗主题" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
  await row(page, "look").getByRole("button", { name: "look 的限制" }).click();
  await expectUsage(page, "周期预算", "$0.00 / $1.00");
  await shot(page, "token-limits-popover-dark");
  await closeDialog(page);
  await row(page, "look").getByRole("button", { name: "编辑" }).click();
  await expect(drawer(page).getByLabel("每分钟请求数")).toHaveValue("60");
  await shot(page, "token-limits-drawer-dark");
  await page.getByRole("button", { name: "取消" }).click();
  await page.getByRole("button", { name: "切换明暗主题" }).click();

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/token");
  // On a phone each key is a card, not a table row.
  await expectFits(page, 390);
  await page.getByRole("button", { name: "look 的限制" }).click();
  await expectUsage(page, "每分钟请求数", "0 / 60");
  await expectFits(page, 390);
  await shot(page, "token-limits-popover-390");
  await closeDialog(page);
  await page.getByRole("button", { name: "编辑" }).click();
  await expect(drawer(page).getByLabel("每分钟请求数")).toHaveValue("60");
  await drawer(page)
    .getByLabel(/^周期预算/)
    .scrollIntoViewIfNeeded();
  await expectFits(page, 390);
  await shot(page, "token-limits-drawer-390");
});

test.describe("settings", () => {
  test.use({ storageState: ROOT_STATE });
  test.setTimeout(120_000);

  const card = (page: Page, name: string) => page.getByRole("region", { name });

  async function rootApi(request: { newContext: (o: object) => Promise<APIRequestContext> }) {
    const api = await request.newContext({ baseURL: E2E_BASE_URL, storageState: ROOT_STATE, extraHTTPHeaders: { "New-Api-User": "1" } });
    const options = async () => {
      const body = await (await api.get("/api/option/")).json();
      return new Map((body.data as Array<{ key: string; value: string }>).map((o) => [o.key, o.value]));
    };
    const put = async (key: string, value: string) => {
      const body = await (await api.put("/api/option/", { data: { key, value } })).json();
      expect(body.success, `${key}: ${body.message}`).toBe(true);
    };
    return { options, put, dispose: () => api.dispose() };
  }

  test("the routing card and the three limit fields save, and refuse bad JSON with the registry's texts", async ({ page, playwright }) => {
    const api = await rootApi(playwright.request);
    const keys = [
      "ChannelBreakerEnabled",
      "ChannelBreakerFailures",
      "ChannelBreakerWindowSeconds",
      "ChannelBreakerCooldownSeconds",
      "ChannelRoutingStrategy",
      "UserRateLimits",
      "GroupRateLimits",
      "ModelRateLimits",
    ];
    const before = await api.options();
    try {
      await page.goto("/setting?tab=operation");
      const routing = card(page, "路由与熔断设置");
      await expect(routing.getByRole("switch", { name: "启用渠道熔断" })).toBeChecked();
      await routing.getByLabel("熔断失败次数").fill("7");
      await routing.getByLabel("冷却时间").fill("45");
      const strategy = routing.getByRole("textbox", { name: "分组路由策略" });
      await strategy.fill('{"default": "fastest"}');
      await routing.getByRole("button", { name: "保存路由与熔断设置" }).click();
      await expect(routing.getByText('分组路由策略应为 JSON 对象，形如 {"default": "least_inflight"}')).toBeVisible();
      expect((await api.options()).get("ChannelBreakerFailures")).toBe(before.get("ChannelBreakerFailures"));
      await strategy.fill('{"default": "least_inflight", "vip": "lowest_latency"}');
      await routing.getByRole("button", { name: "保存路由与熔断设置" }).click();
      await expect(toast(page, "保存成功")).toBeVisible();
      await expect
        .poll(async () => (await api.options()).get("ChannelRoutingStrategy"))
        .toBe('{"default": "least_inflight", "vip": "lowest_latency"}');
      expect((await api.options()).get("ChannelBreakerFailures")).toBe("7");

      const limits = card(page, "速率限制设置");
      const users = limits.getByRole("textbox", { name: "用户限制" });
      const groups = limits.getByRole("textbox", { name: "分组总限制" });
      const models = limits.getByRole("textbox", { name: "模型限制" });
      await users.fill('{"default": {"rpm": 60,');
      await limits.getByRole("button", { name: "保存速率限制设置" }).click();
      await expect(limits.getByText("不是合法的 JSON 字符串")).toBeVisible();
      await users.fill('{"default": {"rpm": -1}}');
      await groups.fill('{"default": {"qps": 5}}');
      await models.fill('{"default": {"gpt-4o": 60}}');
      await limits.getByRole("button", { name: "保存速率限制设置" }).click();
      await expect(limits.getByText('用户限制应为 JSON 对象，形如 {"default": {"rpm": 60}}')).toBeVisible();
      await expect(limits.getByText('分组总限制应为 JSON 对象，形如 {"default": {"rpm": 6000}}')).toBeVisible();
      await expect(limits.getByText('模型限制应为 JSON 对象，形如 {"default": {"gpt-4o": {"rpm": 60}}}')).toBeVisible();
      expect((await api.options()).get("UserRateLimits")).toBe(before.get("UserRateLimits"));

      await users.fill('{"default": {"rpm": 60, "tpm": 100000, "concurrency": 5}}');
      await groups.fill('{"default": {"rpm": 6000, "concurrency": 200}}');
      await models.fill('{"default": {"gpt-4o": {"rpm": 60}}}');
      await limits.getByRole("button", { name: "保存速率限制设置" }).click();
      await expect(toast(page, "保存成功").first()).toBeVisible();
      await expect.poll(async () => (await api.options()).get("ModelRateLimits")).toBe('{"default": {"gpt-4o": {"rpm": 60}}}');
      const saved = await api.options();
      expect(saved.get("UserRateLimits")).toBe('{"default": {"rpm": 60, "tpm": 100000, "concurrency": 5}}');
      expect(saved.get("GroupRateLimits")).toBe('{"default": {"rpm": 6000, "concurrency": 200}}');

      await page.reload();
      await expect(card(page, "路由与熔断设置").getByLabel("熔断失败次数")).toHaveValue("7");
      await expect(card(page, "速率限制设置").getByRole("textbox", { name: "模型限制" })).toHaveValue(
        '{"default": {"gpt-4o": {"rpm": 60}}}',
      );
      const cards = [
        ["路由与熔断设置", "routing"],
        ["速率限制设置", "rate-limit"],
      ] as const;
      for (const [name, file] of cards) {
        await card(page, name).scrollIntoViewIfNeeded();
        await card(page, name).screenshot({ path: `test-results/screenshots/limits-settings-${file}.png` });
      }
      await page.getByRole("button", { name: "切换明暗主题" }).click();
      await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
      await card(page, "路由与熔断设置").screenshot({ path: "test-results/screenshots/limits-settings-routing-dark.png" });
      await page.getByRole("button", { name: "切换明暗主题" }).click();
      await page.setViewportSize({ width: 390, height: 844 });
      await expect(card(page, "路由与熔断设置")).toBeVisible();
      await expectFits(page, 390);
      for (const [name, file] of cards) {
        await card(page, name).scrollIntoViewIfNeeded();
        await card(page, name).screenshot({ path: `test-results/screenshots/limits-settings-${file}-390.png` });
      }
    } finally {
      for (const key of keys) await api.put(key, before.get(key) ?? "");
      await api.dispose();
    }
  });
});
