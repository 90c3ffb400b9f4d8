// Top-up orders through the real console: a user starts two EPay payments (POST /api/user/pay),
// sees them 待支付 in the wallet's 充值记录; root finds one on /orders with the filters and marks it
// paid after the confirm dialog; the user's balance rises by its quota and the order reads 已完成.
// Screenshots of both lists in light, dark and at 390 px.
import type { APIRequestContext, Browser, Locator } from "@playwright/test";
import { E2E_BASE_URL, ROOT_STATE } from "./env";
import { expect, expectFits, newUserSession, type Page, setOptions, shot, sideMenu, test, toast } from "./support";

let root: APIRequestContext;
let restoreOptions: (() => Promise<void>) | undefined;

// EPay on: the gateway is never reached (the test pays nothing), so any loopback URL will do.
const EPAY = { ServerAddress: E2E_BASE_URL, PayAddress: "http://127.0.0.1:9", EpayId: "1000", EpayKey: "e2e-orders-key", Price: "7.3" };

test.beforeAll(async ({ playwright }) => {
  root = await playwright.request.newContext({
    baseURL: E2E_BASE_URL,
    storageState: ROOT_STATE,
    extraHTTPHeaders: { "New-Api-User": "1" },
  });
  restoreOptions = await setOptions(root, EPAY);
});

test.afterAll(async () => {
  await restoreOptions?.();
  await root.dispose();
});

/** Starts a payment as the signed-in user, as the wallet's 确定支付 does; answers the order number. */
async function startPayment(page: Page, amount: number, method: "zfb" | "wx"): Promise<string> {
  const id = await page.evaluate(() => JSON.parse(localStorage.getItem("user") ?? "{}").id as number);
  const res = await page.request.post("/api/user/pay", {
    data: { amount, payment_method: method, top_up_code: "" },
    headers: { "New-Api-User": String(id) },
  });
  const body = await res.json();
  expect(body.success, JSON.stringify(body)).toBe(true);
  return body.data.out_trade_no as string;
}

/** The row (or, on a phone, the card) of an order. */
const orderRow = (page: Page, list: string, tradeNo: string): Locator =>
  page
    .getByRole("table", { name: list })
    .or(page.getByRole("list", { name: list }))
    .locator("[data-row-id]")
    .filter({ hasText: tradeNo });

async function toggleTheme(page: Page, scheme: "dark" | "light") {
  await page.getByRole("button", { name: "切换明暗主题" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", scheme);
}

/** Screenshots `{name}-dark`, then `{name}-390` (still dark) once the list is cards and nothing is wider than the phone. */
async function darkAndNarrow(page: Page, list: string, name: string) {
  await toggleTheme(page, "dark");
  await shot(page, `${name}-dark`);
  await page.setViewportSize({ width: 390, height: 844 });
  await expect.poll(() => page.getByRole("list", { name: list }).isVisible()).toBe(true);
  await expectFits(page, 390);
  await shot(page, `${name}-390`);
  await toggleTheme(page, "light");
}

async function rootPage(browser: Browser) {
  const context = await browser.newContext({ storageState: ROOT_STATE, viewport: { width: 1280, height: 800 } });
  return { context, page: await context.newPage() };
}

test("a pending order in 充值记录, found on /orders with the filters, marked paid once: balance and status follow", async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const { username } = await newUserSession(page, "ord");
  const paid = await startPayment(page, 3, "zfb");
  const other = await startPayment(page, 2, "wx");

  await page.goto("/topup");
  await expect(page.getByTestId("wallet-balance")).toHaveText("$0.00");
  const mine = orderRow(page, "充值记录", paid);
  await expect(mine).toContainText("待支付");
  await expect(mine).toContainText("21.90 CNY");
  await expect(mine).toContainText("支付宝");
  await expect(mine).toContainText("$3.00");
  await expect(orderRow(page, "充值记录", other)).toContainText("微信");
  await expect(page.getByText("共 2 条")).toBeVisible();
  await shot(page, "orders-wallet-light");

  const admin = await rootPage(browser);
  try {
    const rp = admin.page;
    await rp.goto("/token");
    await sideMenu(rp).getByRole("link", { name: "充值订单" }).click();
    await expect(rp).toHaveURL(/\/orders$/);
    await expect(rp.getByRole("heading", { name: "充值订单" })).toBeVisible();

    // The filters: this user, pending, 支付宝 → only the order to complete.
    await rp.getByLabel("用户名").fill(username);
    await rp.getByRole("combobox", { name: "状态" }).click();
    await rp.getByRole("option", { name: "待支付", exact: true }).click();
    await rp.getByRole("combobox", { name: "支付方式" }).click();
    await rp.getByRole("option", { name: "支付宝", exact: true }).click();
    await rp.getByRole("button", { name: "查询" }).click();
    await expect(rp).toHaveURL(/status=pending/);
    await expect(rp).toHaveURL(/payment_method=zfb/);
    const rows = rp.getByRole("table", { name: "充值订单列表" }).locator("[data-row-id]");
    await expect(rows).toHaveCount(1);
    const row = rows.filter({ hasText: paid });
    await expect(row).toContainText(username);
    await expect(row).toContainText("21.90 CNY");
    await shot(rp, "orders-admin-light");

    // 标记已支付: the dialog asks to check the gateway first; cancelling moves nothing.
    await row.getByRole("button", { name: "标记已支付" }).click();
    const dialog = rp.getByRole("dialog", { name: "标记已支付" });
    await expect(dialog).toContainText("请先在支付网关核实该订单已付款");
    await expect(dialog).toContainText(paid);
    await expect(rp.locator(".mantine-Modal-content")).toHaveCSS("opacity", "1");
    await shot(rp, "orders-admin-confirm");
    await dialog.getByRole("button", { name: "取消" }).click();
    await expect(dialog).toHaveCount(0);
    await expect(row).toContainText("待支付");

    await row.getByRole("button", { name: "标记已支付" }).click();
    await dialog.getByRole("button", { name: "确认已付款" }).click();
    await expect(toast(rp, "补单成功，充值额度：$3.00")).toBeVisible();
    // Paid, it no longer matches 待支付.
    await expect(rp.getByText("没有符合条件的充值订单")).toBeVisible();
    await rp.getByRole("button", { name: "重置" }).click();
    await expect(rp).toHaveURL(/\/orders$/);
    await rp.getByLabel("用户名").fill(username);
    await rp.getByRole("button", { name: "查询" }).click();
    const done = rp.getByRole("table", { name: "充值订单列表" }).locator("[data-row-id]").filter({ hasText: paid });
    await expect(done).toContainText("已完成");
    await expect(done).toContainText("由 root 补单");
    await expect(done.getByRole("button", { name: "标记已支付" })).toHaveCount(0);
    await expect(rows.filter({ hasText: other }).getByRole("button", { name: "标记已支付" })).toBeEnabled();
    await darkAndNarrow(rp, "充值订单列表", "orders-admin");
  } finally {
    await admin.context.close();
  }

  // The user: credited once, the order complete, the other still pending.
  await page.reload();
  await expect(page.getByTestId("wallet-balance")).toHaveText("$3.00");
  await expect(mine).toContainText("已完成");
  await expect(orderRow(page, "充值记录", other)).toContainText("待支付");
  await darkAndNarrow(page, "充值记录", "orders-wallet");
});

test("a new user's 充值记录 is empty, pages under its own keys, and an ordinary user cannot open /orders", async ({ page }) => {
  await newUserSession(page, "ordn");
  // Back from a gateway: the list's paging keeps what the gateway appended.
  await page.goto("/topup?out_trade_no=USR0NOnone1700000000&type=alipay");
  await expect(page.getByText("暂无充值记录")).toBeVisible();
  await page.getByRole("combobox", { name: "每页条数" }).click();
  await page.getByRole("option", { name: "20 条/页" }).click();
  await expect(page).toHaveURL(/[?&]orders_size=20(&|$)/);
  expect(new URL(page.url()).searchParams.get("out_trade_no")).toBe("USR0NOnone1700000000");
  expect(new URL(page.url()).searchParams.get("type")).toBe("alipay");
  expect(new URL(page.url()).searchParams.has("size")).toBe(false);
  await expect(sideMenu(page).getByRole("link", { name: "充值订单" })).toHaveCount(0);
  await page.goto("/orders");
  await expect(page.getByRole("heading", { name: "充值订单" })).toHaveCount(0);
});
