// Accessibility of every console page in light and dark mode (issue 20.21): axe-core's WCAG 2.0/2.1
// A and AA rules, colour contrast above all (text and badges ≥ 4.5:1), run in real Chromium on
// pages with real data: enabled, manually and automatically disabled channels, tokens, codes, log
// rows of several types. Any violation fails the test and names the rule, the element and the
// colours axe measured.
//
// Rules left out, and why:
// - none. Every wcag2a/wcag2aa/wcag21a/wcag21aa rule axe ships runs on every page.
import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "@playwright/test";
import { type OpenAIMock, startOpenAIMock } from "../mocks/openai-upstream";
import { ROOT_STATE } from "./env";
import { expect, test } from "./support";

const AS_ROOT = { "New-Api-User": "1" };
const uid = Date.now().toString(36);
/** A model of this run's own, so the relay call goes to this run's channel (not an earlier run's). */
const MODEL = `a11y-${uid}`;

let working: OpenAIMock;
let broken: OpenAIMock;

async function call(page: Page, method: "GET" | "POST" | "PUT", url: string, data?: unknown) {
  const res = await page.request.fetch(url, { method, data, headers: AS_ROOT });
  const body = await res.json();
  expect(body.success, `${method} ${url}: ${body.message}`).toBe(true);
  return body;
}

/** Channels in all three states, a token, a code, and log rows of consume, top-up and test types. */
async function seed(browser: Browser) {
  const context = await browser.newContext({ storageState: ROOT_STATE });
  const page = await context.newPage();
  const channel = async (name: string, url: string) => {
    await call(page, "POST", "/api/channel/", { name, type: 1, key: "sk-a11y", base_url: url, models: MODEL, group: "default" });
    const found = await call(page, "GET", `/api/channel/search?keyword=${name}`);
    return (found.data.items ?? found.data)[0].id as number;
  };
  const options: { key: string; value: string }[] = (await call(page, "GET", "/api/option/")).data;
  const ratios = JSON.parse(options.find((o) => o.key === "ModelRatio")?.value || "{}");
  await call(page, "PUT", "/api/option/", { key: "ModelRatio", value: JSON.stringify({ ...ratios, [MODEL]: 1 }) });
  await channel(`ok${uid}`, working.url);
  const off = await channel(`off${uid}`, working.url);
  await call(page, "PUT", "/api/channel/", { id: off, status: 2 });
  const auto = await channel(`auto${uid}`, broken.url);
  await call(page, "PUT", "/api/option/", { key: "AutomaticDisableChannelEnabled", value: "true" });
  await page.request.get(`/api/channel/test/${auto}`, { headers: AS_ROOT });
  await call(page, "PUT", "/api/option/", { key: "AutomaticDisableChannelEnabled", value: "false" });

  const token = await call(page, "POST", "/api/token/", { name: `key${uid}`, remain_quota: 0, unlimited_quota: true, expired_time: -1 });
  const key = String(token.data.key).startsWith("sk-") ? token.data.key : `sk-${token.data.key}`;
  const answer = await page.request.post("/v1/chat/completions", {
    headers: { authorization: `Bearer ${key}` },
    data: { model: MODEL, messages: [{ role: "user", content: "hi" }] },
  });
  expect(answer.status()).toBe(200);
  const codes = await call(page, "POST", "/api/redemption/", { name: `code${uid}`, quota: 500000, count: 2 });
  await call(page, "POST", "/api/user/topup", { key: codes.data[0] });
  await context.close();
}

test.beforeAll(async ({ browser }) => {
  working = await startOpenAIMock();
  broken = await startOpenAIMock({ behaviour: { failStatus: 401 } });
  await seed(browser);
});

test.afterAll(async () => {
  await working?.close();
  await broken?.close();
});

/** Runs axe on what the page shows now; fails (softly: every page is still checked) listing every violation with its nodes. */
async function expectAccessible(page: Page, what: string) {
  // Mantine's transitions (drawers, notifications) fade in: measure the settled colours.
  await page.waitForTimeout(400);
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const found = result.violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help}\n` +
      v.nodes
        .slice(0, 8)
        .map((n) => `    ${n.target.join(" ")}: ${n.failureSummary?.split("\n").slice(1).join(" ").trim()}`)
        .join("\n"),
  );
  expect.soft(found, `${what}\n${found.join("\n")}`).toEqual([]);
}

type Visit = { path: string; ready: (page: Page) => Promise<void> };

const heading = (name: string | RegExp) => async (page: Page) => {
  await expect(page.getByRole("heading", { name }).first()).toBeVisible();
};

const PUBLIC_PAGES: Visit[] = [
  { path: "/", ready: async (page) => expect(page.locator("main")).toBeVisible() },
  { path: "/login", ready: heading("用户登录") },
  { path: "/register", ready: heading("新用户注册") },
  { path: "/pricing", ready: heading(/模型|定价|价格/) },
  { path: "/about", ready: async (page) => expect(page.locator("main")).toBeVisible() },
];

const CONSOLE_PAGES: Visit[] = [
  { path: "/", ready: async (page) => expect(page.locator("main")).toBeVisible() },
  { path: "/token", ready: heading("令牌管理") },
  {
    path: "/channel",
    ready: async (page) => {
      await expect(page.getByText("自动禁用").first()).toBeVisible();
      await expect(page.getByText("已禁用").first()).toBeVisible();
    },
  },
  { path: "/user", ready: heading("用户管理") },
  { path: "/redemption", ready: heading("兑换码管理") },
  { path: "/orders", ready: heading("充值订单") },
  { path: "/audit", ready: heading("审计日志") },
  { path: "/log", ready: async (page) => expect(page.locator("tbody tr[data-row-id]").first()).toBeVisible() },
  { path: "/detail", ready: heading("数据看板") },
  { path: "/topup", ready: heading("钱包") },
  { path: "/setting?tab=personal", ready: async (page) => expect(page.getByRole("tab", { selected: true }).first()).toBeVisible() },
  { path: "/setting?tab=operation", ready: async (page) => expect(page.getByRole("tab", { selected: true }).first()).toBeVisible() },
  { path: "/setting?tab=system", ready: async (page) => expect(page.getByRole("tab", { selected: true }).first()).toBeVisible() },
  { path: "/setting?tab=other", ready: async (page) => expect(page.getByRole("tab", { selected: true }).first()).toBeVisible() },
  { path: "/setting?tab=import", ready: async (page) => expect(page.getByRole("button", { name: "试运行" })).toBeVisible() },
  { path: "/playground", ready: async (page) => expect(page.locator("main")).toBeVisible() },
  { path: "/pricing", ready: heading(/模型|定价|价格/) },
  { path: "/about", ready: async (page) => expect(page.locator("main")).toBeVisible() },
];

for (const scheme of ["light", "dark"] as const) {
  test.describe(`${scheme} mode`, () => {
    test.use({ colorScheme: scheme });
    test.beforeEach(async ({ page }) => {
      // The remembered pick, so the scheme holds whatever the default is.
      await page.addInitScript((value) => localStorage.setItem("qiao-color-scheme", value), scheme);
    });

    test("logged-out pages", async ({ page }) => {
      for (const visit of PUBLIC_PAGES) {
        await page.goto(visit.path);
        await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", scheme);
        await visit.ready(page);
        await expectAccessible(page, `${visit.path} (${scheme}, logged out)`);
      }
    });

    test.describe("as root", () => {
      test.use({ storageState: ROOT_STATE });

      test("console pages", async ({ page }) => {
        test.setTimeout(180_000);
        for (const visit of CONSOLE_PAGES) {
          await page.goto(visit.path);
          await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", scheme);
          await visit.ready(page);
          await expectAccessible(page, `${visit.path} (${scheme}, root)`);
        }
      });

      test("a drawer", async ({ page }) => {
        await page.goto("/token");
        await page.getByRole("button", { name: "添加令牌" }).click();
        const drawer = page.getByRole("dialog");
        await expect(drawer).toBeVisible();
        await expectAccessible(page, `the token drawer (${scheme})`);
      });
    });
  });
}
