// Paying through EPay in the real console (issue 24): root points the options at a mock gateway on
// loopback (tests/mocks/epay.ts) and ServerAddress at this server; a user enters an amount, picks
// 支付宝 (then 微信), confirms the server's price, pays on the gateway's page, and comes back to
// /topup with the 充值成功 banner and the balance raised by exactly the amount. Screenshots of the
// dialog and the banner in light, dark and at 390 px.
import type { APIRequestContext } from "@playwright/test";
import { type MockEpay, startMockEpay } from "../mocks/epay";
import { E2E_BASE_URL, ROOT_STATE } from "./env";
import { expect, expectFits, newUserSession, type Page, setOptions, shot, test } from "./support";

const PID = "1001";
const KEY = "e2e-epay-merchant-key";

let root: APIRequestContext;
let gw: MockEpay;
let restoreOptions: (() => Promise<void>) | undefined;

test.beforeAll(async ({ playwright }) => {
  root = await playwright.request.newContext({
    baseURL: E2E_BASE_URL,
    storageState: ROOT_STATE,
    extraHTTPHeaders: { "New-Api-User": "1" },
  });
  gw = await startMockEpay({ pid: PID, key: KEY });
  // ServerAddress first: payment settings need it.
  restoreOptions = await setOptions(root, {
    ServerAddress: E2E_BASE_URL,
    PayAddress: gw.url,
    EpayId: PID,
    EpayKey: KEY,
    Price: "7.3",
    MinTopUp: "1",
  });
});

test.afterAll(async () => {
  await restoreOptions?.();
  await root.dispose();
  await gw.close();
});

const balance = (page: Page) => page.getByTestId("wallet-balance");
const banner = (page: Page) => page.getByTestId("payment-result");

test("支付宝 and 微信: the server's price, the gateway's page, back on /topup with 充值成功 and the balance raised", async ({ page }) => {
  await newUserSession(page, "epay");
  await page.goto("/topup");
  await expect(balance(page)).toHaveText("$0.00");

  const methods = [
    { label: "支付宝", type: "支付宝", epayType: "alipay" },
    { label: "微信", type: "微信支付", epayType: "wxpay" },
  ];
  for (const [i, m] of methods.entries()) {
    await page.getByRole("textbox", { name: "充值数量（美元）" }).fill("10");
    const quoted = page.waitForResponse((r) => r.url().endsWith("/api/user/amount"));
    await page.getByRole("button", { name: m.label, exact: true }).click();
    expect(await (await quoted).json()).toMatchObject({ success: true, data: "73.00" });
    const dialog = page.getByRole("dialog", { name: "确定要充值吗？" });
    await expect(dialog.getByTestId("topup-pay")).toHaveText("73.00 元");
    await expect(dialog).toContainText(m.label);
    if (i === 0) {
      await expect(page.locator(".mantine-Modal-content")).toHaveCSS("opacity", "1");
      await shot(page, "pay-epay-dialog");
    }

    // The signed form goes to the gateway in this tab.
    await dialog.getByRole("button", { name: "确定支付" }).click();
    await page.waitForURL(`${gw.url}/submit.php`);
    await expect(page).toHaveTitle("模拟易支付");
    await expect(page.getByTestId("money")).toHaveText("¥73.00");
    await expect(page.getByTestId("type")).toHaveText(m.type);
    const tradeNo = (await page.getByTestId("out-trade-no").textContent()) ?? "";
    expect(gw.submissions.at(-1)).toMatchObject({ method: "POST", accepted: true, form: { type: m.epayType, money: "73.00" } });

    await page.getByRole("button", { name: "确认付款" }).click();
    await page.waitForURL((url) => url.pathname === "/topup" && url.searchParams.get("out_trade_no") === tradeNo);
    expect(gw.notifications.at(-1)).toMatchObject({ method: "GET", status: 200, text: "success" });
    await expect(banner(page)).toContainText("充值成功");
    await expect(banner(page)).toContainText(`已到账 $10.00，订单号 ${tradeNo}`);
    await expect(balance(page)).toHaveText(`$${(i + 1) * 10}.00`);
  }

  await shot(page, "pay-epay-banner");
  await page.getByRole("button", { name: "切换明暗主题" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
  await shot(page, "pay-epay-banner-dark");
  await page.setViewportSize({ width: 390, height: 844 });
  await expectFits(page, 390);
  await shot(page, "pay-epay-banner-narrow-dark");
  await page.getByRole("button", { name: "微信", exact: true }).click();
  await expect(page.locator(".mantine-Modal-content")).toHaveCSS("opacity", "1");
  await shot(page, "pay-epay-dialog-narrow-dark");
  await page.keyboard.press("Escape");
  await page.getByRole("button", { name: "切换明暗主题" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "light");
});

test("another user's order number in the return URL shows nothing; an unpaid order says its result is being confirmed", async ({
  page,
}) => {
  await newUserSession(page, "epay2");
  const userId = await page.evaluate(() => JSON.parse(localStorage.getItem("user") ?? "{}").id as number);
  const created = await (
    await page.request.post("/api/user/pay", { data: { amount: 2, payment_method: "wx" }, headers: { "New-Api-User": String(userId) } })
  ).json();
  expect(created.success, created.message).toBe(true);
  const own = created.data.out_trade_no as string;
  const other = gw.submissions.find((s) => s.accepted)!.form.out_trade_no!;

  // The query's trade_status is not believed: the order is still pending here.
  await page.goto(`/topup?out_trade_no=${own}&trade_status=TRADE_SUCCESS`);
  await expect(banner(page)).toContainText("支付结果确认中，到账后余额会自动更新");
  await expect(banner(page)).toContainText(`订单号 ${own}，实付 14.60 元`);
  await expect(balance(page)).toHaveText("$0.00");
  await shot(page, "pay-epay-pending");
  // The gateway's notice arrives; the banner's re-check shows it.
  await gw.submit(created.data);
  await gw.notify(own);
  await page.getByRole("button", { name: "刷新" }).click();
  await expect(banner(page)).toContainText("充值成功");
  await expect(balance(page)).toHaveText("$2.00");

  await page.goto(`/topup?out_trade_no=${other}`);
  await expect(page.getByRole("heading", { name: "钱包" })).toBeVisible();
  await expect(banner(page)).toHaveCount(0);
});
