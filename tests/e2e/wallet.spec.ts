// The wallet page (spec §2 Wallet page, §5 Redeem and top-up, §8) driven through the real console
// as an ordinary user; root changes the options through the API and restores them after each test.
// Screenshots in light, dark and at 390 px.
import type { APIRequestContext } from "@playwright/test";
import { E2E_BASE_URL, ROOT_STATE } from "./env";
import {
  closeDialog,
  expect,
  expectFits,
  newUserSession,
  optionValues,
  type Page,
  setOption,
  setOptions,
  shot,
  test,
  toast,
} from "./support";

let root: APIRequestContext;

test.beforeAll(async ({ playwright }) => {
  root = await playwright.request.newContext({
    baseURL: E2E_BASE_URL,
    storageState: ROOT_STATE,
    extraHTTPHeaders: { "New-Api-User": "1" },
  });
});

test.afterAll(async () => {
  await root.dispose();
});

/** Sets options for the length of `run`, then puts the old values back (support.ts, setOptions). */
async function withOptions(values: Record<string, string>, run: () => Promise<void>) {
  const restore = await setOptions(root, values);
  try {
    await run();
  } finally {
    await restore();
  }
}

const ONLINE_TOP_UP = { PayAddress: "https://pay.example.com", EpayId: "1000", EpayKey: "e2e-epay-key" };

const balance = (page: Page) => page.getByTestId("wallet-balance");

/** The dialog once its opening transition is over (for a screenshot). */
async function settledDialog(page: Page) {
  await expect(page.locator(".mantine-Modal-content")).toHaveCSS("opacity", "1");
}

test("redeem: the empty-code text, '请求失败' when the request gets no answer", async ({ page }) => {
  await newUserSession(page, "wal");
  await page.goto("/topup");
  await expect(page.getByRole("heading", { name: "钱包" })).toBeVisible();
  await expect(balance(page)).toHaveText("$0.00");

  await page.getByRole("button", { name: "兑换", exact: true }).click();
  await expect(toast(page, "请输入兑换码！")).toBeVisible();
  await page.getByRole("textbox", { name: "兑换码" }).fill("   ");
  await page.getByRole("button", { name: "兑换", exact: true }).click();
  // The same answer again replaces the toast on screen rather than stacking a second (issue 20.22).
  await expect(toast(page, "请输入兑换码！")).toHaveCount(1);
  await page.waitForTimeout(500);
  await expect(toast(page, "请输入兑换码！")).toHaveCount(1);

  // The connection drops before any answer (a network fault, not a stand-in for the server).
  await page.route("**/api/user/topup", (route) => route.abort("connectionreset"));
  await page.getByRole("textbox", { name: "兑换码" }).fill("some-code");
  await page.getByRole("button", { name: "兑换", exact: true }).click();
  await expect(toast(page, "请求失败")).toBeVisible();
  await page.unroute("**/api/user/topup");
  await expect(balance(page)).toHaveText("$0.00");
  await shot(page, "wallet-user");
});

// Needs POST /api/user/topup and POST /api/redemption/ (branch h/redeem).
test("redeem: a wrong code is refused with the server's text, a valid code credits the balance once", async ({ page }) => {
  const created = await (await root.post("/api/redemption/", { data: { name: "e2e-wallet", quota: 100000, count: 1 } })).json();
  expect(created.success, JSON.stringify(created)).toBe(true);
  const code: string = created.data[0];

  await newUserSession(page, "red");
  await page.goto("/topup");
  await expect(balance(page)).toHaveText("$0.00");

  await page.getByRole("textbox", { name: "兑换码" }).fill("not-a-real-code");
  await page.getByRole("button", { name: "兑换", exact: true }).click();
  await expect(toast(page, "无效的兑换码")).toBeVisible();
  await expect(balance(page)).toHaveText("$0.00");

  // Spaces around the pasted code do not matter; 100000 quota is $0.20.
  await page.getByRole("textbox", { name: "兑换码" }).fill(`  ${code} `);
  await page.getByRole("button", { name: "兑换", exact: true }).click();
  await expect(toast(page, "充值成功！充值额度：$0.20")).toBeVisible();
  await expect(balance(page)).toHaveText("$0.20");
  await expect(page.getByRole("textbox", { name: "兑换码" })).toHaveValue("");

  await page.getByRole("textbox", { name: "兑换码" }).fill(code);
  await page.getByRole("button", { name: "兑换", exact: true }).click();
  await expect(toast(page, "该兑换码已被使用")).toBeVisible();
  await page.reload();
  await expect(balance(page)).toHaveText("$0.20");
});

test("the get-code button: the spec's text while TopUpLink is unset, the link in a new tab once set", async ({ page, context }) => {
  await newUserSession(page, "link");
  await withOptions({ TopUpLink: "" }, async () => {
    await page.goto("/topup");
    await page.getByRole("button", { name: "获取兑换码" }).click();
    await expect(toast(page, "超级管理员未设置充值链接！")).toBeVisible();
  });
  await withOptions({ TopUpLink: "https://shop.example.com/buy?item=quota" }, async () => {
    await context.route("https://shop.example.com/**", (route) => route.fulfill({ body: "shop", contentType: "text/plain" }));
    await page.goto("/topup");
    const popup = page.waitForEvent("popup");
    await page.getByRole("button", { name: "获取兑换码" }).click();
    const opened = await popup;
    await opened.waitForLoadState();
    expect(opened.url()).toBe("https://shop.example.com/buy?item=quota");
    await expect(opened.locator("body")).toHaveText("shop");
    await opened.close();
  });
});

test("online top-up off: the block says so and offers no payment", async ({ page }) => {
  await newUserSession(page, "off");
  await withOptions({ PayAddress: "" }, async () => {
    await page.goto("/topup");
    await expect(page.getByText("管理员未开启在线充值！")).toBeVisible();
    await expect(page.getByRole("button", { name: "支付宝" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "微信" })).toHaveCount(0);
    await expect(page.getByLabel(/充值数量/)).toHaveCount(0);
  });
});

test("online top-up on: the amount is clamped, checked against the minimum and quoted by the server", async ({ page }) => {
  await newUserSession(page, "pay");
  const before = await optionValues(root);
  const settings: Record<string, string> = { ...ONLINE_TOP_UP, MinTopUp: "2", Price: "7.3" };
  // Payment settings need a server address first (spec §5 Options).
  if (!before.get("ServerAddress")) settings.ServerAddress = E2E_BASE_URL;
  await withOptions(settings, async () => {
    await page.goto("/topup");
    await expect(page.getByText("管理员未开启在线充值！")).toHaveCount(0);
    const amount = page.getByRole("textbox", { name: "充值数量（美元）" });
    await expect(amount).toHaveValue("2");
    await expect(page.getByText("最低充值数量：2")).toBeVisible();

    // Never below 1, never a fraction, and an empty field reads as 1.
    await amount.fill("0");
    await amount.blur();
    await expect(amount).toHaveValue("1");
    await amount.fill("");
    await amount.blur();
    await expect(amount).toHaveValue("1");
    await amount.fill("");
    await amount.pressSequentially("1.5");
    await expect(amount).toHaveValue("15");
    // Below the server's minimum: the spec's text, and no quote is asked for.
    await amount.fill("1");
    let quotes = 0;
    page.on("request", (r) => {
      if (r.url().endsWith("/api/user/amount")) quotes++;
    });
    await page.getByRole("button", { name: "支付宝" }).click();
    await expect(toast(page, "充值数量不能小于2")).toBeVisible();
    expect(quotes).toBe(0);
    await expect(page.getByRole("dialog")).toHaveCount(0);

    // The dialog shows exactly what POST /api/user/amount answers: 10 × 7.3 × 1 = 73.00.
    await amount.fill("10");
    const answered = page.waitForResponse((r) => r.url().endsWith("/api/user/amount"));
    await page.getByRole("button", { name: "支付宝" }).click();
    const quote = await (await answered).json();
    expect(quote).toMatchObject({ success: true, data: "73.00" });
    const dialog = page.getByRole("dialog", { name: "确定要充值吗？" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByTestId("topup-amount")).toHaveText("10 美元");
    await expect(dialog.getByTestId("topup-pay")).toHaveText(`${quote.data} 元`);
    await expect(dialog).toContainText("支付宝");
    // Paying through the gateway is tests/e2e/pay-epay.spec.ts.
    await expect(dialog.getByRole("button", { name: "确定支付" })).toBeEnabled();
    await settledDialog(page);
    await shot(page, "wallet-topup-dialog");
    await dialog.getByRole("button", { name: "取消" }).click();
    await expect(dialog).toHaveCount(0);

    await page.getByRole("button", { name: "微信" }).click();
    await expect(dialog).toContainText("微信");
    await expect(dialog.getByTestId("topup-pay")).toHaveText("73.00 元");
    await page.keyboard.press("Escape");
    await expect(dialog).toHaveCount(0);

    // A quote the server refuses: '错误：{message}' (spec §8), no dialog.
    await setOption(root, "Price", "0.0001");
    await amount.fill("2");
    await page.getByRole("button", { name: "微信" }).click();
    await expect(toast(page, "错误：充值金额过低")).toBeVisible();
    await expect(dialog).toHaveCount(0);
  });
});

test("online top-up in quota units when currency is not shown", async ({ page }) => {
  await newUserSession(page, "units");
  await withOptions({ ...ONLINE_TOP_UP, MinTopUp: "1", Price: "7.3", DisplayInCurrencyEnabled: "false" }, async () => {
    await page.goto("/topup");
    const amount = page.getByRole("textbox", { name: "充值数量（点额度）" });
    // MinTopUp 1 dollar is 500 000 units.
    await expect(amount).toHaveValue("500,000");
    await amount.fill("400000");
    await page.getByRole("button", { name: "支付宝" }).click();
    await expect(toast(page, "充值数量不能小于500000")).toBeVisible();
    await amount.fill("1000000");
    await page.getByRole("button", { name: "支付宝" }).click();
    const dialog = page.getByRole("dialog", { name: "确定要充值吗？" });
    await expect(dialog.getByTestId("topup-amount")).toHaveText("1,000,000 点额度");
    await expect(dialog.getByTestId("topup-pay")).toHaveText("14.60 元");
    await expect(balance(page)).toHaveText("0");
  });
});

test.describe("looks", () => {
  test("dark mode and a 390 px phone", async ({ page }) => {
    await newUserSession(page, "wlook");
    await withOptions(ONLINE_TOP_UP, async () => {
      await page.goto("/topup");
      await page.getByRole("button", { name: "切换明暗主题" }).click();
      await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
      await shot(page, "wallet-dark");
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto("/topup");
      await expect(page.getByRole("button", { name: "支付宝" })).toBeVisible();
      await expectFits(page, 390);
      await shot(page, "wallet-narrow-dark");
      await page.getByRole("button", { name: "微信" }).click();
      await expect(page.getByRole("dialog", { name: "确定要充值吗？" })).toBeVisible();
      await settledDialog(page);
      await shot(page, "wallet-dialog-narrow-dark");
      await closeDialog(page);
      await page.getByRole("button", { name: "切换明暗主题" }).click();
      await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "light");
      await shot(page, "wallet-narrow");
    });
  });
});
