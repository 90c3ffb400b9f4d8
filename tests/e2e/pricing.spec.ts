// The pricing page (spec §2 Pricing page, §3 Pricing entry, §9 prices) driven through the real
// console, as a visitor and as a signed-in user; screenshots in light, dark and at 390 px. Root
// creates a channel with models of known ratios and prices, so every number on the page is known.
import type { APIRequestContext } from "@playwright/test";
import { E2E_BASE_URL, ROOT_STATE } from "./env";
import {
  clipboardText,
  expect,
  expectFits,
  newUserSession,
  optionValues,
  type Page,
  setOption,
  shot,
  test,
  toast,
  uniqueName,
} from "./support";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

const prefix = uniqueName("e2eprice");
/** Billed by tokens: ratio 1.25, completion ratio 3. */
const ALPHA = `${prefix}-alpha`;
/** Billed per call: US$0.04. */
const BETA = `${prefix}-beta`;
/** Billed by tokens: ratio 0.5, completion ratio 1 (the built-in default for an unknown name). */
const GAMMA = `${prefix}-gamma`;

let root: APIRequestContext;
let channelId = 0;
const saved = new Map<string, string>();

/** Adds entries to a JSON map option, remembering its value for afterAll. */
async function addToMap(key: string, entries: Record<string, number>) {
  const current = (await optionValues(root)).get(key) ?? "{}";
  if (!saved.has(key)) saved.set(key, current);
  await setOption(root, key, JSON.stringify({ ...JSON.parse(current), ...entries }));
}

test.beforeAll(async ({ playwright }) => {
  root = await playwright.request.newContext({
    baseURL: E2E_BASE_URL,
    storageState: ROOT_STATE,
    extraHTTPHeaders: { "New-Api-User": "1" },
  });
  const res = await root.post("/api/channel/", {
    data: { type: 1, name: prefix, key: "sk-e2e-pricing", models: [ALPHA, BETA, GAMMA].join(","), group: "default,vip" },
  });
  const body = await res.json();
  expect(body.success, JSON.stringify(body)).toBe(true);
  channelId = body.data[0].id;
  await addToMap("ModelRatio", { [ALPHA]: 1.25, [GAMMA]: 0.5 });
  await addToMap("CompletionRatio", { [ALPHA]: 3 });
  await addToMap("ModelPrice", { [BETA]: 0.04 });
  await addToMap("GroupRatio", { default: 1, vip: 0.5 });
});

test.afterAll(async () => {
  for (const [key, value] of saved) await setOption(root, key, value);
  if (channelId) expect((await (await root.delete(`/api/channel/${channelId}/`)).json()).success).toBe(true);
  await root.dispose();
});

const row = (page: Page, model: string) => page.getByRole("row").filter({ has: page.getByText(model, { exact: true }) });
/** The model names of the table, top to bottom. */
const modelColumn = (page: Page) => page.locator("tbody tr td:first-child p");

async function search(page: Page, text: string) {
  await page.getByRole("textbox", { name: "模型名称" }).fill(text);
  await page.getByRole("button", { name: "查询" }).click();
}

async function pickGroup(page: Page, label: RegExp) {
  await page.getByRole("combobox", { name: "分组" }).click();
  await page.getByRole("option", { name: label }).click();
}

async function expectDefaultGroupPrices(page: Page) {
  await expect(row(page, ALPHA)).toContainText("按量计费");
  await expect(row(page, ALPHA)).toContainText("输入 $2.50 / 1M tokens");
  await expect(row(page, ALPHA)).toContainText("输出 $7.50 / 1M tokens");
  await expect(row(page, ALPHA)).toContainText("模型倍率 1.25");
  await expect(row(page, ALPHA)).toContainText("补全倍率 3");
  await expect(row(page, BETA)).toContainText("按次计费");
  await expect(row(page, BETA)).toContainText("$0.04 / 次");
  await expect(row(page, BETA)).toContainText("模型价格 0.04");
  await expect(row(page, GAMMA)).toContainText("输入 $1.00 / 1M tokens");
  await expect(row(page, GAMMA)).toContainText("输出 $1.00 / 1M tokens");
}

test("a visitor sees the default group's prices, searches (trimmed), sorts and copies a model name", async ({ page }) => {
  await page.goto("/pricing");
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(page.getByRole("heading", { name: "模型价格" })).toBeVisible();
  await expect(page.getByText("未登录时显示默认分组的价格，登录后可切换到您可用的分组。")).toBeVisible();
  // Only the default group, and it cannot be switched.
  await expect(page.getByRole("combobox", { name: "分组" })).toHaveValue("默认分组（倍率 1）");
  await expect(page.getByRole("combobox", { name: "分组" })).toBeDisabled();

  await search(page, `  ${prefix}  `);
  await expect(page).toHaveURL(new RegExp(`keyword=${prefix}`));
  await expect(modelColumn(page)).toHaveText([ALPHA, BETA, GAMMA]);
  await expect(page.getByText("共 3 条")).toBeVisible();
  await expectDefaultGroupPrices(page);
  await shot(page, "pricing-visitor");

  // By price: billed by tokens first, by input price; then per call.
  await page.getByRole("combobox", { name: "排序" }).click();
  await page.getByRole("option", { name: "价格从低到高" }).click();
  await expect(page).toHaveURL(/sort=price-asc/);
  await expect(modelColumn(page)).toHaveText([GAMMA, ALPHA, BETA]);
  await page.getByRole("combobox", { name: "排序" }).click();
  await page.getByRole("option", { name: "价格从高到低" }).click();
  await expect(modelColumn(page)).toHaveText([ALPHA, GAMMA, BETA]);
  await page.getByRole("combobox", { name: "排序" }).click();
  await page.getByRole("option", { name: "按名称" }).click();
  await expect(page).not.toHaveURL(/sort=/);
  await expect(modelColumn(page)).toHaveText([ALPHA, BETA, GAMMA]);

  // One model by its full name; nothing for a name no model has.
  await search(page, ` ${BETA} `);
  await expect(modelColumn(page)).toHaveText([BETA]);
  await search(page, `${prefix}-nothing`);
  await expect(page.getByText("没有符合条件的模型")).toBeVisible();

  await search(page, GAMMA);
  await row(page, GAMMA).getByRole("button", { name: "复制模型名称" }).click();
  await expect(toast(page, "已复制到剪贴板！")).toBeVisible();
  expect(await clipboardText(page)).toBe(GAMMA);

  // A group a visitor may not pick falls back to default.
  await page.goto(`/pricing?group=vip&keyword=${prefix}`);
  await expect(page.getByRole("combobox", { name: "分组" })).toHaveValue("默认分组（倍率 1）");
  await expectDefaultGroupPrices(page);
});

test("a signed-in user switches groups and the prices follow the group ratio", async ({ page }) => {
  await newUserSession(page, "price");
  await page.goto(`/pricing?keyword=${prefix}`);
  await expect(page.getByText("未登录时显示默认分组的价格，登录后可切换到您可用的分组。")).toHaveCount(0);
  await expect(page.getByRole("combobox", { name: "分组" })).toHaveValue("默认分组（倍率 1）");
  await expectDefaultGroupPrices(page);

  await pickGroup(page, /^vip分组（倍率 0\.5）$/);
  await expect(page).toHaveURL(/group=vip/);
  await expect(page.getByRole("combobox", { name: "分组" })).toHaveValue("vip分组（倍率 0.5）");
  // 1.25 × 2 × 0.5 = 1.25 in, × 3 out; 0.04 × 0.5 per call; 0.5 × 2 × 0.5 = 0.5.
  await expect(row(page, ALPHA)).toContainText("输入 $1.25 / 1M tokens");
  await expect(row(page, ALPHA)).toContainText("输出 $3.75 / 1M tokens");
  await expect(row(page, BETA)).toContainText("$0.02 / 次");
  await expect(row(page, GAMMA)).toContainText("输入 $0.50 / 1M tokens");
  await expect(row(page, GAMMA)).toContainText("输出 $0.50 / 1M tokens");
  // Ratios are the model's own; the group ratio is shown in the switcher.
  await expect(row(page, ALPHA)).toContainText("模型倍率 1.25");
  await shot(page, "pricing-user-vip");

  await pickGroup(page, /^默认分组（倍率 1）$/);
  await expect(page).toHaveURL(/group=default/);
  await expectDefaultGroupPrices(page);
});

test("without currency display the prices are the quota the relay bills", async ({ page }) => {
  const before = (await optionValues(root)).get("DisplayInCurrencyEnabled") ?? "true";
  try {
    await setOption(root, "DisplayInCurrencyEnabled", "false");
    await page.goto(`/pricing?keyword=${prefix}`);
    await expect(page.getByRole("columnheader", { name: "价格（点额度）" })).toBeVisible();
    await expect(page.getByText(/按量计费的输入价格 = 模型倍率 × 1000000 × 分组倍率/)).toBeVisible();
    // 1.25 × 1M quota per 1M tokens; × 3 out; 0.04 × 500 000 per call; 0.5 × 1M.
    await expect(row(page, ALPHA)).toContainText("输入 1.25M / 1M tokens");
    await expect(row(page, ALPHA)).toContainText("输出 3.75M / 1M tokens");
    await expect(row(page, BETA)).toContainText("20k / 次");
    await expect(row(page, GAMMA)).toContainText("输入 500k / 1M tokens");
  } finally {
    await setOption(root, "DisplayInCurrencyEnabled", before);
  }
});

test.describe("looks", () => {
  test("dark mode and a 390 px phone", async ({ page }) => {
    await page.goto(`/pricing?keyword=${prefix}`);
    await expect(row(page, ALPHA)).toBeVisible();
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    await shot(page, "pricing-dark");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/pricing?keyword=${prefix}`);
    // A card per model on a phone (components/data/paged-table.tsx); the page never scrolls sideways.
    await expect(page.getByRole("listitem").filter({ has: page.getByText(ALPHA, { exact: true }) })).toBeVisible();
    await expectFits(page, 390);
    await shot(page, "pricing-narrow-dark");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "light");
    await shot(page, "pricing-narrow");
  });
});
