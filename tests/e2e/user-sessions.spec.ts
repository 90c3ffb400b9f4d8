// Personal settings → 登录会话 in the real console: one user signed in from two browsers (and a
// third), the first ends the second's session and then all the others; each ended browser is sent
// to the login page on its next page; ending the current session signs the first out. Screenshots
// of the card in light, dark and at 390 px (SHOTS_DIR, outside the repository).
import { mkdirSync } from "node:fs";
import type { Browser, BrowserContext, Locator } from "@playwright/test";
import { expect, expectFits, loginViaUi, type Page, test, toast, uniqueName } from "./support";

const SHOTS_DIR = process.env.QIAO_SHOTS_DIR ?? "test-results/screenshots";
const PASSWORD = "password-123";
const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1";
const FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";

const card = (page: Page) => page.getByRole("region", { name: "登录会话" });
const sessionRow = (page: Page, device: string) => card(page).getByRole("listitem", { name: device });

async function snap(target: Locator, name: string) {
  mkdirSync(SHOTS_DIR, { recursive: true });
  await target.screenshot({ path: `${SHOTS_DIR}/${name}.png` });
}

/** Another browser (its own cookies), signed in as `username` through the login form. */
async function signedInBrowser(browser: Browser, username: string, userAgent: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ userAgent });
  const page = await context.newPage();
  await loginViaUi(page, username, PASSWORD);
  return { context, page };
}

/**
 * A new user signed in twice: in the test's page (through the form) and in a second browser that
 * says it is Safari on an iPhone. The settings page is open on the first, listing both sessions.
 */
async function signedInTwice(
  page: Page,
  browser: Browser,
  prefix: string,
): Promise<{ username: string; phone: { context: BrowserContext; page: Page } }> {
  const username = uniqueName(prefix);
  const registered = await page.request.post("/api/user/register", { data: { username, password: PASSWORD, password2: PASSWORD } });
  expect((await registered.json()).success).toBe(true);
  await loginViaUi(page, username, PASSWORD);
  const phone = await signedInBrowser(browser, username, IPHONE);
  await page.goto("/setting");
  await expect(card(page).getByRole("listitem")).toHaveCount(2);
  return { username, phone };
}

async function confirmWith(page: Page, label: string) {
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: label, exact: true }).click();
}

test("a user ends another browser's session, then all the others, then its own", async ({ page, browser }) => {
  const { username, phone } = await signedInTwice(page, browser, "sess");
  try {
    // This browser (headless Chromium on Linux) first, marked current; the phone after it.
    const mine = card(page).getByRole("listitem").first();
    await expect(mine.getByText("当前会话")).toBeVisible();
    await expect(mine).toHaveAccessibleName("Chrome · Linux");
    await expect(sessionRow(page, "Safari · iPhone").getByText("当前会话")).toHaveCount(0);
    await expect(sessionRow(page, "Safari · iPhone").getByText(/^密码 · /)).toBeVisible();
    await expect(sessionRow(page, "Safari · iPhone").getByText(/最近活动 刚刚/)).toBeVisible();
    await snap(card(page), "sessions-card-light");

    // Cancelling the confirm ends nothing.
    await sessionRow(page, "Safari · iPhone").getByRole("button", { name: /^退出/ }).click();
    await confirmWith(page, "取消");
    await expect(card(page).getByRole("listitem")).toHaveCount(2);

    await sessionRow(page, "Safari · iPhone").getByRole("button", { name: /^退出/ }).click();
    await confirmWith(page, "退出");
    await expect(toast(page, "已退出该会话").first()).toBeVisible();
    await expect(card(page).getByRole("listitem")).toHaveCount(1);
    await expect(card(page).getByRole("button", { name: "退出其他所有会话" })).toBeDisabled();

    // The phone's next page sends it to the login page with the expired notice.
    await phone.page.goto("/setting");
    await expect(phone.page).toHaveURL(/\/login\?expired=true$/);

    // A third browser, then 退出其他所有会话 from the first.
    const desktop = await signedInBrowser(browser, username, FIREFOX_WINDOWS);
    try {
      await page.reload();
      await expect(card(page).getByRole("listitem")).toHaveCount(2);
      await expect(sessionRow(page, "Firefox · Windows")).toBeVisible();
      await card(page).getByRole("button", { name: "退出其他所有会话" }).click();
      await confirmWith(page, "全部退出");
      await expect(toast(page, "已退出其他 1 个会话").first()).toBeVisible();
      await expect(card(page).getByRole("listitem")).toHaveCount(1);
      await desktop.page.goto("/token");
      await expect(desktop.page).toHaveURL(/\/login\?expired=true$/);
    } finally {
      await desktop.context.close();
    }

    // Ending the current session signs this browser out.
    await card(page).getByRole("listitem").first().getByRole("button", { name: /^退出/ }).click();
    await confirmWith(page, "退出");
    await expect(page).toHaveURL(/\/login$/);
    await page.goto("/setting");
    await expect(page).toHaveURL(/\/login/);
  } finally {
    await phone.context.close();
  }
});

test("the card in dark mode and on a 390 px phone", async ({ page, browser }) => {
  const { phone } = await signedInTwice(page, browser, "sesslook");
  try {
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    await snap(card(page), "sessions-card-dark");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/setting");
    await expect(card(page).getByRole("listitem")).toHaveCount(2);
    await expectFits(page, 390);
    await snap(card(page), "sessions-card-narrow");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "light");
    await snap(card(page), "sessions-card-narrow-light");
  } finally {
    await phone.context.close();
  }
});
