// Routing and the circuit breaker in the console (issue 26): the 路由与熔断设置 card saves its
// fields and refuses an unknown strategy; a channel whose upstream keeps failing is opened by the
// relay worker that saw the failures, and the console (another process) shows 熔断中 with when it
// reopens and the last failure. Screenshots in light, dark and at 390 px.
import type { APIRequestContext } from "@playwright/test";
import { type OpenAIMock, startOpenAIMock } from "../mocks/openai-upstream";
import { ROOT_STATE } from "./env";
import { expect, expectFits, type Page, shot, test, toast } from "./support";

test.use({ storageState: ROOT_STATE });
test.setTimeout(120_000);

const AS_ROOT = { "New-Api-User": "1" };
const stamp = Date.now().toString(36);
const card = (page: Page, name: string) => page.getByRole("region", { name });

async function call(api: APIRequestContext, method: string, url: string, data?: unknown) {
  const r = await api.fetch(url, { method, headers: AS_ROOT, data });
  const body = await r.json();
  expect(body.success, `${method} ${url}: ${body.message}`).toBe(true);
  return body.data;
}
const optionsOf = async (api: APIRequestContext): Promise<Map<string, string>> =>
  new Map((await call(api, "GET", "/api/option/")).map((o: { key: string; value: string }) => [o.key, o.value]));

const ROUTING_KEYS = ["ChannelBreakerFailures", "ChannelBreakerCooldownSeconds", "ChannelRoutingStrategy"] as const;

test("the routing card saves the breaker's thresholds and the strategies, and refuses an unknown strategy", async ({ page }) => {
  const before = await optionsOf(page.request);
  try {
    await page.goto("/setting?tab=operation");
    const routing = card(page, "路由与熔断设置");
    await expect(routing.getByRole("switch", { name: "启用渠道熔断" })).toBeChecked();
    await routing.getByLabel("熔断失败次数").fill("7");
    await routing.getByLabel("冷却时间").fill("45");
    const strategies = routing.getByRole("textbox", { name: "分组路由策略" });
    await strategies.fill('{"default": "fastest"}');
    await routing.getByRole("button", { name: "保存路由与熔断设置" }).click();
    await expect(routing.getByText('分组路由策略应为 JSON 对象，形如 {"default": "least_inflight"}')).toBeVisible();
    expect((await optionsOf(page.request)).get("ChannelRoutingStrategy")).toBe(before.get("ChannelRoutingStrategy"));
    await strategies.fill('{"vip": "least_inflight", "default": "lowest_latency"}');
    await routing.getByRole("button", { name: "保存路由与熔断设置" }).click();
    await expect(toast(page, "保存成功").first()).toBeVisible();
    await expect.poll(async () => (await optionsOf(page.request)).get("ChannelRoutingStrategy")).toContain("least_inflight");

    await page.reload();
    const again = card(page, "路由与熔断设置");
    await expect(again.getByLabel("熔断失败次数")).toHaveValue("7");
    await expect(again.getByLabel("冷却时间")).toHaveValue("45 秒");
    const saved = await optionsOf(page.request);
    expect(saved.get("ChannelBreakerFailures")).toBe("7");
    expect(JSON.parse(saved.get("ChannelRoutingStrategy") ?? "{}")).toEqual({ vip: "least_inflight", default: "lowest_latency" });
    await again.scrollIntoViewIfNeeded();
    await shot(page, "settings-routing");
  } finally {
    for (const key of ROUTING_KEYS) await call(page.request, "PUT", "/api/option/", { key, value: before.get(key) ?? "" });
  }
});

test.describe("a failing channel", () => {
  let upstream: OpenAIMock;
  test.beforeAll(async () => {
    upstream = await startOpenAIMock();
    upstream.setBehaviour({ failStatus: 500 });
  });
  test.afterAll(async () => {
    await upstream.close();
  });

  test("is opened by the relay and shown as 熔断中 in the channel list, with when it reopens and why", async ({ page }) => {
    const model = `e2e-breaker-${stamp}`;
    const name = `breaker-${stamp}`;
    await call(page.request, "POST", "/api/channel/", {
      name,
      type: 1,
      key: "sk-up",
      base_url: upstream.url,
      models: model,
      group: "default",
      priority: 1000,
    });
    const options = await optionsOf(page.request);
    const ratios = JSON.parse(options.get("ModelRatio") || "{}");
    await call(page.request, "PUT", "/api/option/", { key: "ModelRatio", value: JSON.stringify({ ...ratios, [model]: 1 }) });
    const token = await call(page.request, "POST", "/api/token/", {
      name: `bk-${stamp}`,
      remain_quota: 0,
      unlimited_quota: true,
      expired_time: -1,
    });
    const key = String(token.key).startsWith("sk-") ? String(token.key) : `sk-${token.key}`;
    const relay = async () =>
      (
        await page.request.post("/v1/chat/completions", {
          headers: { authorization: `Bearer ${key}` },
          data: { model, messages: [{ role: "user", content: "hi" }] },
        })
      ).status();
    // The default threshold: 5 failures within a minute. The relay worker (another process) hears
    // of the new channel and price a moment after the console saved them; until then it refuses
    // the model without calling any channel, which is no channel failure.
    await expect.poll(relay, { timeout: 15_000 }).toBe(500);
    for (let i = 0; i < 4; i++) expect(await relay()).toBe(500);

    await page.goto("/channel");
    const row = page.getByRole("row").filter({ hasText: name });
    const tag = row.getByText(/熔断中 至 \d\d:\d\d:\d\d/);
    await expect(tag).toBeVisible();
    await tag.hover();
    await expect(page.getByRole("tooltip")).toContainText("最近失败：状态码 500");
    await shot(page, "channels-breaker");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    await shot(page, "channels-breaker-dark");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await page.setViewportSize({ width: 390, height: 844 });
    // A card per channel on a phone.
    await expect(
      page
        .getByRole("listitem")
        .filter({ hasText: name })
        .getByText(/熔断中/),
    ).toBeVisible();
    await expectFits(page, 390);
    await shot(page, "channels-breaker-390");
  });
});
