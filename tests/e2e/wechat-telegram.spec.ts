// WeChat and Telegram sign-in through the real console, on a server of its own (the options it
// turns on would put buttons on every other spec's login page) whose Telegram widget script is a
// stand-in on loopback (TELEGRAM_WIDGET_URL; the real one cannot load offline), beside a mock
// wechat-server. Root opens both in the system tab; a visitor invited by root signs up through the
// WeChat modal (start quota and both rewards, exactly); a user binds WeChat and Telegram in personal
// settings, then signs in with the Telegram widget; a Telegram link not opened from our pages does
// nothing. Screenshots of the WeChat modal and the bindings, light, dark and 390 px.
import { mkdirSync } from "node:fs";
import type { APIRequestContext, Browser, BrowserContext } from "@playwright/test";
import { type MockTelegramWidget, startMockTelegramWidget, telegramLogin } from "../mocks/telegram";
import { type MockWeChatServer, startMockWeChatServer, WECHAT_CODE_VALID_MS } from "../mocks/wechat";
import { type PrivateServer, startPrivateServer } from "./private-server";
import { closeDialog, expect, expectFits, loginViaUi, type Page, setOption, test, toast, uniqueName } from "./support";

test.describe.configure({ mode: "serial" });

const SHOTS = "/work/wt/shots/wechat-telegram";
const WX_TOKEN = "e2e-wechat-server-token";
const BOT_TOKEN = "7007007007:AAE2E-qiao-telegram-bot";
const BOT_NAME = "qiao_e2e_bot";
const QUOTA = { QuotaForNewUser: 100_000, QuotaForInvitee: 50_000, QuotaForInviter: 20_000 };

let server: PrivateServer;
let wx: MockWeChatServer;
let widget: MockTelegramWidget;
let root: APIRequestContext;

async function newContext(browser: Browser, width = 1280): Promise<BrowserContext> {
  return browser.newContext({ baseURL: server.baseURL, viewport: { width, height: 900 } });
}

async function snap(page: Page, name: string, target?: { screenshot: (o: { path: string }) => Promise<unknown> }) {
  mkdirSync(SHOTS, { recursive: true });
  await page.waitForTimeout(300); // let opening animations finish before the picture
  if (target) await target.screenshot({ path: `${SHOTS}/${name}.png` });
  else await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}

async function switchScheme(page: Page, to: "light" | "dark") {
  await page.getByRole("button", { name: "切换明暗主题" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", to);
}

/** A console call in the page's session (its cookie, its user's New-Api-User). */
async function consoleCall(page: Page, path: string) {
  const userId = await page.evaluate(() => JSON.parse(localStorage.getItem("user") ?? "{}").id as number);
  const res = await page.request.get(path, { headers: { "New-Api-User": String(userId) } });
  const body = await res.json();
  expect(body.success, `${path}: ${body.message}`).toBe(true);
  return body.data;
}

const bindings = (page: Page) => page.getByRole("region", { name: "账户绑定" });

test.beforeAll(async ({ playwright }) => {
  test.setTimeout(180_000);
  wx = await startMockWeChatServer({ token: WX_TOKEN });
  widget = await startMockTelegramWidget({ botToken: BOT_TOKEN });
  server = await startPrivateServer({ TELEGRAM_WIDGET_URL: widget.scriptUrl });
  root = await playwright.request.newContext({ baseURL: server.baseURL, extraHTTPHeaders: { "New-Api-User": "1" } });
  expect((await (await root.post("/api/user/login", { data: { username: "root", password: "123456" } })).json()).success).toBe(true);
  for (const [key, value] of Object.entries(QUOTA)) await setOption(root, key, String(value));
});

test.afterAll(async () => {
  await root?.dispose();
  await server?.stop();
  await wx?.close();
  await widget?.close();
});

test("root opens WeChat and Telegram sign-in in the system tab", async ({ browser }) => {
  const context = await newContext(browser);
  const page = await context.newPage();
  await loginViaUi(page, "root", "123456");
  await page.goto("/setting?tab=system");
  const toggles = page.getByRole("region", { name: "配置登录注册" });
  const wechatSwitch = toggles.getByRole("switch", { name: "允许通过微信登录 & 注册" });
  const telegramSwitch = toggles.getByRole("switch", { name: "允许通过 Telegram 进行登录" });
  await expect(wechatSwitch).toBeEnabled();
  await expect(telegramSwitch).toBeEnabled();

  // Refused until the settings are there, then on.
  await wechatSwitch.click();
  await expect(toast(page, "无法启用微信登录")).toBeVisible();
  await expect(wechatSwitch).not.toBeChecked();

  const wechat = page.getByRole("region", { name: "配置 WeChat Server" });
  await expect(wechat.getByText("尚未开放", { exact: true })).toHaveCount(0);
  await wechat.getByLabel("WeChat Server 服务器地址").fill(wx.url);
  await wechat.getByLabel("WeChat Server 访问凭证").fill(WX_TOKEN);
  await wechat.getByLabel("微信公众号二维码图片链接").fill(wx.qrcodeUrl);
  await wechat.getByRole("button", { name: "保存 WeChat Server 设置" }).click();
  await expect(toast(page, "保存成功")).toBeVisible();

  const telegram = page.getByRole("region", { name: "配置 Telegram 登录" });
  await expect(telegram.getByText("/setdomain")).toBeVisible();
  await telegram.getByLabel("Telegram Bot Token").fill(BOT_TOKEN);
  await telegram.getByLabel("Telegram Bot 名称").fill(BOT_NAME);
  await telegram.getByRole("button", { name: "保存 Telegram 登录设置" }).click();
  await expect(toast(page, "保存成功")).toBeVisible();

  await wechatSwitch.click();
  await expect(wechatSwitch).toBeChecked();
  await telegramSwitch.click();
  await expect(telegramSwitch).toBeChecked();

  const status = (await (await root.get("/api/status")).json()).data;
  expect(status).toMatchObject({
    wechat_login: true,
    wechat_qrcode: wx.qrcodeUrl,
    telegram_oauth: true,
    telegram_bot_name: BOT_NAME,
    telegram_widget_url: widget.scriptUrl,
  });
  await context.close();
});

test("an invited visitor signs up through the WeChat modal; an expired code is refused in place", async ({ browser }) => {
  const affCode: string = (await (await root.get("/api/user/aff")).json()).data;
  const rootBefore = (await (await root.get("/api/user/self")).json()).data;
  const context = await newContext(browser);
  const page = await context.newPage();
  await page.goto(`/login?aff=${affCode}`);
  await expect(page.getByText("第三方登录")).toBeVisible();
  await expect(page.getByRole("button", { name: "Log in with Telegram" })).toBeVisible();
  await snap(page, "login-page-light");

  await page.getByRole("button", { name: "微信", exact: true }).click();
  const modal = page.getByRole("dialog", { name: "微信扫码登录" });
  await expect(modal).toBeVisible();
  const qr = modal.getByRole("img", { name: "微信公众号二维码" });
  await expect(qr).toHaveAttribute("src", wx.qrcodeUrl);
  await expect.poll(() => qr.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  await expect(modal.getByText("向公众号发送「验证码」")).toBeVisible();
  await expect(modal.getByText("3 分钟内有效")).toBeVisible();
  await snap(page, "wechat-modal-light");

  // A code three minutes old: the modal stays, with the message.
  const openId = uniqueName("o-e2e-");
  const stale = wx.issueCode(openId);
  wx.advance(WECHAT_CODE_VALID_MS);
  await modal.getByLabel("验证码").fill(stale);
  await modal.getByRole("button", { name: "登录" }).click();
  await expect(toast(page, "验证码错误或已过期")).toBeVisible();
  await expect(modal).toBeVisible();

  await modal.getByLabel("验证码").fill(wx.issueCode(openId));
  await modal.getByRole("button", { name: "登录" }).click();
  await expect(page).toHaveURL(/\/token$/);
  await expect(toast(page, "登录成功！")).toBeVisible();

  const self = await consoleCall(page, "/api/user/self");
  expect(self.username).toMatch(/^wechat_/);
  expect(self).toMatchObject({ wechat_id: openId, quota: QUOTA.QuotaForNewUser + QUOTA.QuotaForInvitee, inviter_id: 1 });
  const rootAfter = (await (await root.get("/api/user/self")).json()).data;
  expect(rootAfter.aff_count).toBe(rootBefore.aff_count + 1);
  expect(rootAfter.aff_quota).toBe(rootBefore.aff_quota + QUOTA.QuotaForInviter);
  expect(rootAfter.quota).toBe(rootBefore.quota);
  await context.close();
});

test("the WeChat modal in dark mode and on a 390 px phone", async ({ browser }) => {
  const context = await newContext(browser, 390);
  const page = await context.newPage();
  await page.goto("/login");
  // Polled: the cards that change layout by a media query settle a frame after the resize.
  await expectFits(page, 390);
  await snap(page, "login-page-390");
  await page.getByRole("button", { name: "微信", exact: true }).click();
  await expect(page.getByRole("dialog", { name: "微信扫码登录" })).toBeVisible();
  await snap(page, "wechat-modal-390");
  await closeDialog(page);
  await switchScheme(page, "dark");
  await page.getByRole("button", { name: "微信", exact: true }).click();
  await expect(page.getByRole("dialog", { name: "微信扫码登录" })).toBeVisible();
  await snap(page, "wechat-modal-dark-390");
  await page.setViewportSize({ width: 1280, height: 900 });
  await snap(page, "wechat-modal-dark");
  await context.close();
});

test("a user binds WeChat and Telegram in personal settings, then signs in with the Telegram widget", async ({ browser }) => {
  const username = uniqueName("wt");
  const password = "password-123";
  const context = await newContext(browser);
  const page = await context.newPage();
  expect(
    (await (await page.request.post("/api/user/register", { data: { username, password, password2: password } })).json()).success,
  ).toBe(true);
  await loginViaUi(page, username, password);
  await page.goto("/setting");
  const card = bindings(page);
  await expect(card.getByText("未绑定")).toHaveCount(5);

  // WeChat: the same modal, then the bind call.
  await card.getByRole("button", { name: "绑定微信" }).click();
  const modal = page.getByRole("dialog", { name: "绑定微信账号" });
  await expect(modal.getByRole("img", { name: "微信公众号二维码" })).toBeVisible();
  const openId = uniqueName("o-bind-");
  await modal.getByLabel("验证码").fill(wx.issueCode(openId));
  await modal.getByRole("button", { name: "绑定" }).click();
  await expect(toast(page, "微信账号绑定成功")).toBeVisible();
  await expect(modal).toBeHidden();
  await expect(card.getByText(openId)).toBeVisible();

  // Telegram: the widget loads from TELEGRAM_WIDGET_URL for the bot and comes back to /oauth/telegram/bind.
  const script = card.locator("[data-testid=telegram-widget] script");
  await expect(script).toHaveAttribute("src", widget.scriptUrl);
  await expect(script).toHaveAttribute("data-telegram-login", BOT_NAME);
  await expect(script).toHaveAttribute("data-auth-url", "/oauth/telegram/bind");
  const telegramId = String(6_100_000_000 + Math.floor(Math.random() * 1_000_000));
  widget.setAccount({ id: telegramId, first_name: "Grace", username: "grace_h" });
  await page.reload(); // the widget signs its account when the script is served
  await snap(page, "bindings-light", bindings(page));
  await bindings(page).getByRole("button", { name: "Log in with Telegram" }).click();
  await expect(page).toHaveURL(/\/setting$/);
  await expect(toast(page, "Telegram 账户绑定成功")).toBeVisible();
  await expect(bindings(page).getByText(telegramId)).toBeVisible();
  await expect(bindings(page).getByText(openId)).toBeVisible();
  await snap(page, "bindings-bound-light", bindings(page));

  await switchScheme(page, "dark");
  await snap(page, "bindings-bound-dark", bindings(page));
  await page.setViewportSize({ width: 390, height: 900 });
  // Polled: the cards that change layout by a media query settle a frame after the resize.
  await expectFits(page, 390);
  await snap(page, "bindings-bound-dark-390", bindings(page));
  await switchScheme(page, "light");
  await snap(page, "bindings-bound-390", bindings(page));
  await page.setViewportSize({ width: 1280, height: 900 });

  // Signed out, the login page's widget signs in to the bound account.
  await page.getByTestId("user-menu").click();
  await page.getByRole("menuitem", { name: "退出" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.locator("[data-testid=telegram-widget] script")).toHaveAttribute("data-auth-url", "/oauth/telegram");
  await page.getByRole("button", { name: "Log in with Telegram" }).click();
  await expect(page).toHaveURL(/\/token$/);
  await expect(toast(page, "登录成功！")).toBeVisible();
  expect((await consoleCall(page, "/api/user/self")).username).toBe(username);

  // An unbound Telegram account is told so and stays on the login page.
  await page.getByTestId("user-menu").click();
  await page.getByRole("menuitem", { name: "退出" }).click();
  widget.setAccount({ id: "6999999999", first_name: "Nobody" });
  await page.reload();
  await page.getByRole("button", { name: "Log in with Telegram" }).click();
  await expect(toast(page, "该 Telegram 账户未绑定")).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);
  await context.close();
});

test("a Telegram bind link not opened from our pages binds nothing", async ({ browser }) => {
  const username = uniqueName("wx");
  const password = "password-123";
  const context = await newContext(browser);
  const page = await context.newPage();
  expect(
    (await (await page.request.post("/api/user/register", { data: { username, password, password2: password } })).json()).success,
  ).toBe(true);
  await loginViaUi(page, username, password);
  // As if from a link on another site (or pasted): the browser says the navigation started elsewhere.
  const fields = telegramLogin(BOT_TOKEN, { id: "6888888888", first_name: "Mallory" });
  const calls: string[] = [];
  page.on("request", (r) => {
    if (new URL(r.url()).pathname.startsWith("/api/oauth/telegram")) calls.push(r.url());
  });
  await page.goto(`/oauth/telegram/bind?${new URLSearchParams(fields)}`);
  await expect(page.getByText("这条 Telegram 授权链接不是从本站页面打开的，已忽略。", { exact: false })).toBeVisible();
  await snap(page, "telegram-link-refused-light");
  expect(calls).toEqual([]);
  expect((await consoleCall(page, "/api/user/self")).telegram_id).toBe("");
  await context.close();
});
