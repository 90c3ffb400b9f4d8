// Personal settings (spec §2 Settings → personal, §5 Users, §7 Account and login) through the real
// console: profile, available models, invite link and reward transfer, system access token,
// password change and account deletion as an ordinary user; root's badge, refused self-deletion
// and the default-password banner. Screenshots in light, dark and at 390 px.
import type { APIRequestContext, Browser } from "@playwright/test";
import { E2E_BASE_URL, ROOT_STATE } from "./env";
import { startPrivateServer } from "./private-server";
import {
  clipboardText,
  DEFAULT_PASSWORD_NOTICE,
  expect,
  expectFits,
  loginViaUi,
  newUserSession,
  type Page,
  shot,
  test,
  toast,
  uniqueName,
} from "./support";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

const card = (page: Page, name: string) => page.getByRole("region", { name });

/** The value beside a label inside a card (当前余额, 待使用收益, 用户名, …). */
const figure = (page: Page, cardName: string, label: string) =>
  card(page, cardName).getByText(label, { exact: true }).locator("xpath=following-sibling::*[1]");

const dollars = (text: string | null) => Number((text ?? "").replace(/[$,]/g, ""));

/** Root's API, through the session auth.setup.ts stored. */
async function rootApi(playwright: { request: { newContext: (o: object) => Promise<APIRequestContext> } }) {
  const api = await playwright.request.newContext({
    baseURL: E2E_BASE_URL,
    storageState: ROOT_STATE,
    extraHTTPHeaders: { "New-Api-User": "1" },
  });
  const call = async <T = unknown>(method: string, url: string, data?: unknown): Promise<T> => {
    const body = await (await api.fetch(url, { method, data })).json();
    expect(body.success, `${method} ${url}: ${body.message}`).toBe(true);
    return body.data as T;
  };
  return { call, dispose: () => api.dispose() };
}

async function registerThroughLink(browser: Browser, link: string): Promise<string> {
  const visitor = await browser.newContext({ baseURL: E2E_BASE_URL });
  const page = await visitor.newPage();
  const url = new URL(link);
  await page.goto(`${url.pathname}${url.search}`);
  const username = uniqueName("inv");
  await page.getByLabel("用户名", { exact: true }).fill(username);
  await page.getByLabel("密码", { exact: true }).fill("password-123");
  await page.getByLabel("确认密码", { exact: true }).fill("password-123");
  await page.getByRole("button", { name: "注册", exact: true }).click();
  await expect(page).toHaveURL(/\/login$/);
  await visitor.close();
  return username;
}

test("an ordinary user reads the profile, copies models and the invite link, and moves invite reward to the balance", async ({
  page,
  browser,
  playwright,
}) => {
  const root = await rootApi(playwright);
  const models = [uniqueName("e2e-set-a-"), uniqueName("e2e-set-b-")];
  const [channel] = await root.call<{ id: number }[]>("POST", "/api/channel/", {
    name: models[0],
    type: 1,
    key: "sk-settings",
    models: models.join(","),
    group: "default",
  });
  // Only models with a price are offered to users (issue 20.17).
  const options = await root.call<{ key: string; value: string }[]>("GET", "/api/option/");
  const ratios = options.find((o) => o.key === "ModelRatio")!.value;
  await root.call("PUT", "/api/option/", {
    key: "ModelRatio",
    value: JSON.stringify({ ...JSON.parse(ratios), [models[0]!]: 1, [models[1]!]: 1 }),
  });
  // Each registration through an invite link earns the inviter $2.
  await root.call("PUT", "/api/option/", { key: "QuotaForInviter", value: "1000000" });
  try {
    const { username } = await newUserSession(page, "set");
    await page.goto("/setting");
    await expect(page.getByRole("tab", { name: "个人设置" })).toHaveAttribute("aria-selected", "true");
    // Only built tabs are offered.
    await expect(page.getByRole("tab")).toHaveCount(1);

    // Profile.
    const profile = card(page, "个人信息");
    await expect(profile.getByText("普通用户")).toBeVisible();
    await expect(figure(page, "个人信息", "用户名")).toHaveText(username);
    await expect(figure(page, "个人信息", "用户分组")).toHaveText("default");
    await expect(figure(page, "个人信息", "当前余额")).toHaveText("$0.00");
    await expect(figure(page, "个人信息", "历史消耗")).toHaveText("$0.00");
    await expect(figure(page, "个人信息", "请求次数")).toHaveText("0");

    // Models: one click copies one name; 复制全部 copies the list.
    const modelCard = card(page, "可用模型");
    for (const model of models) await expect(modelCard.getByRole("button", { name: model })).toBeVisible();
    await modelCard.getByRole("button", { name: models[1] }).click();
    await expect(toast(page, "已复制到剪贴板！").first()).toBeVisible();
    expect(await clipboardText(page)).toBe(models[1]);
    await modelCard.getByRole("button", { name: "复制全部" }).click();
    await expect.poll(async () => (await clipboardText(page)).split(",")).toEqual(expect.arrayContaining(models));

    // Bindings: nothing bound; with no provider switched on only the e-mail can be bound (tests/e2e/mail.spec.ts
    // binds one; tests/e2e/oauth.spec.ts binds GitHub, LinuxDO and OIDC).
    const bindings = card(page, "账户绑定");
    await expect(bindings.getByText("未绑定")).toHaveCount(5);
    await expect(bindings.getByRole("button")).toHaveCount(1);
    await expect(bindings.getByRole("button", { name: "绑定邮箱" })).toBeVisible();

    // Invite link with the user's code, copied by its button.
    const invite = card(page, "邀请信息");
    const linkInput = invite.getByRole("textbox", { name: "邀请链接" });
    await expect(linkInput).toHaveValue(/\/register\?aff=[A-Za-z0-9]{4,}$/);
    const link = await linkInput.inputValue();
    await invite.getByRole("button", { name: "复制邀请链接" }).click();
    await expect.poll(() => clipboardText(page)).toBe(link);
    await expect(figure(page, "邀请信息", "邀请人数")).toHaveText("0");
    await expect(figure(page, "邀请信息", "待使用收益")).toHaveText("$0.00");

    // Nothing to transfer yet: less than one quota unit is refused in the dialog.
    await invite.getByRole("button", { name: "划转到余额" }).click();
    const dialog = page.getByRole("dialog", { name: "划转邀请额度到余额" });
    await dialog.getByRole("button", { name: "划转", exact: true }).click();
    await expect(dialog.getByText("转移额度最小为＄1.000000 额度！")).toBeVisible();
    await dialog.getByRole("button", { name: "取消" }).click();
    await expect(dialog).toHaveCount(0);

    // Someone registers through the link: the count and the reward grow.
    await registerThroughLink(browser, link);
    await page.reload();
    await expect(figure(page, "邀请信息", "邀请人数")).toHaveText("1");
    await expect(figure(page, "邀请信息", "待使用收益")).toHaveText("$2.00");
    await expect(figure(page, "邀请信息", "总收益")).toHaveText("$2.00");
    await shot(page, "settings-user");

    // The dialog offers the whole reward; more than that, or under $1, is refused.
    await invite.getByRole("button", { name: "划转到余额" }).click();
    const amount = dialog.getByLabel("划转额度");
    await expect(amount).toHaveValue("$2");
    await amount.fill("3");
    await dialog.getByRole("button", { name: "划转", exact: true }).click();
    await expect(dialog.getByText("邀请额度不足！")).toBeVisible();
    await amount.fill("0.5");
    await dialog.getByRole("button", { name: "划转", exact: true }).click();
    await expect(dialog.getByText("转移额度最小为＄1.000000 额度！")).toBeVisible();
    await amount.fill("1.5");
    await dialog.getByRole("button", { name: "划转", exact: true }).click();
    await expect(toast(page, "划转成功")).toBeVisible();
    await expect(dialog).toHaveCount(0);
    await expect(figure(page, "邀请信息", "待使用收益")).toHaveText("$0.50");
    await expect(figure(page, "个人信息", "当前余额")).toHaveText("$1.50");
    // The server agrees after a reload.
    await page.reload();
    await expect(figure(page, "邀请信息", "待使用收益")).toHaveText("$0.50");
    await expect(figure(page, "邀请信息", "总收益")).toHaveText("$2.00");
    expect(dollars(await figure(page, "个人信息", "当前余额").textContent())).toBe(1.5);

    // Dark mode and a phone-sized screen.
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    await shot(page, "settings-user-dark");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(figure(page, "个人信息", "当前余额")).toBeVisible();
    await expectFits(page, 390);
    await shot(page, "settings-user-390");
    await invite.getByRole("button", { name: "划转到余额" }).click();
    await expect(dialog).toBeVisible();
    await shot(page, "settings-transfer-390");
  } finally {
    await root.call("PUT", "/api/option/", { key: "ModelRatio", value: ratios });
    await root.call("PUT", "/api/option/", { key: "QuotaForInviter", value: "0" });
    await root.call("DELETE", `/api/channel/${channel!.id}`);
    await root.dispose();
  }
});

test("a user created by an admin gets an invite code on the first visit", async ({ page, playwright }) => {
  const root = await rootApi(playwright);
  const username = uniqueName("adm");
  await root.call("POST", "/api/user/", { username, password: "password-123" });
  await root.dispose();
  await loginViaUi(page, username, "password-123");
  await page.goto("/setting?tab=personal");
  const link = card(page, "邀请信息").getByRole("textbox", { name: "邀请链接" });
  await expect(link).toHaveValue(/\/register\?aff=[A-Za-z0-9]{4,}$/);
  // The code is stored: the call the console offers answers the same one.
  const code = new URL(await link.inputValue()).searchParams.get("aff");
  const id = await page.evaluate(() => JSON.parse(localStorage.getItem("user") ?? "{}").id as number);
  const res = await (await page.request.get("/api/user/aff", { headers: { "New-Api-User": String(id) } })).json();
  expect(res).toMatchObject({ success: true, data: code });
});

test("the system access token is shown once, copies, works, and a new one replaces it", async ({ page, playwright }) => {
  const { username } = await newUserSession(page, "tok");
  await page.goto("/setting");
  const tokenCard = card(page, "系统访问令牌");
  await tokenCard.getByRole("button", { name: "生成系统访问令牌" }).click();
  const dialog = page.getByRole("dialog", { name: "新的系统访问令牌" });
  await expect(dialog.getByText("此令牌只显示这一次，关闭后无法再次查看，请立即复制并妥善保存。")).toBeVisible();
  const first = ((await dialog.getByLabel("系统访问令牌").textContent()) ?? "").trim();
  expect(first).toMatch(/^[A-Za-z0-9_-]{32}$/);
  await shot(page, "settings-access-token");
  await dialog.getByRole("button", { name: "复制" }).click();
  await expect(toast(page, "已复制到剪贴板！")).toBeVisible();
  expect(await clipboardText(page)).toBe(first);
  await dialog.getByRole("button", { name: "关闭" }).last().click(); // the footer's; the first is the header's ×
  await expect(dialog).toHaveCount(0);
  await expect(page.getByText(first)).toHaveCount(0);

  // The token authenticates the management API on its own.
  const bare = await playwright.request.newContext({ baseURL: E2E_BASE_URL });
  const self = async (token: string) => (await bare.get("/api/user/self", { headers: { Authorization: token } })).json();
  expect(await self(first)).toMatchObject({ success: true, data: { username } });

  // A new one replaces it.
  await tokenCard.getByRole("button", { name: "生成系统访问令牌" }).click();
  const second = ((await dialog.getByLabel("系统访问令牌").textContent()) ?? "").trim();
  expect(second).not.toBe(first);
  await dialog.getByRole("button", { name: "关闭" }).last().click(); // the footer's; the first is the header's ×
  expect(await self(second)).toMatchObject({ success: true, data: { username } });
  expect((await self(first)).success).toBe(false);
  await bare.dispose();
});

test("a user changes the password with every check, then logs in with the new one", async ({ page, browser }) => {
  const { username, password } = await newUserSession(page, "pwd");
  await page.goto("/setting");
  const form = card(page, "修改密码");
  const submit = form.getByRole("button", { name: "修改密码" });

  await submit.click();
  await expect(form.getByText("请输入原密码")).toBeVisible();
  await expect(form.getByText("密码长度不得小于 8 位！")).toBeVisible();

  await form.getByLabel("当前密码").fill(password);
  await form.getByLabel("新密码", { exact: true }).fill("a".repeat(21));
  await form.getByLabel("确认新密码").fill("a".repeat(21));
  await submit.click();
  await expect(form.getByText("密码长度不得大于 20 位！")).toBeVisible();

  await form.getByLabel("新密码", { exact: true }).fill("new-password-1");
  await form.getByLabel("确认新密码").fill("new-password-2");
  await submit.click();
  await expect(form.getByText("两次输入的密码不一致！")).toBeVisible();

  // A wrong current password is refused by the server.
  await form.getByLabel("当前密码").fill("not-my-password");
  await form.getByLabel("确认新密码").fill("new-password-1");
  await submit.click();
  await expect(toast(page, "原密码错误")).toBeVisible();

  await form.getByLabel("当前密码").fill(password);
  await submit.click();
  await expect(toast(page, "密码修改成功！")).toBeVisible();
  await expect(form.getByLabel("当前密码")).toHaveValue("");

  // This browser stays logged in.
  await page.reload();
  await expect(page).toHaveURL(/\/setting$/);
  await expect(card(page, "个人信息")).toBeVisible();

  // Elsewhere, the old password no longer works and the new one does.
  const other = await browser.newContext({ baseURL: E2E_BASE_URL });
  const visitor = await other.newPage();
  await visitor.goto("/login");
  await visitor.getByLabel("用户名", { exact: true }).fill(username);
  await visitor.getByLabel("密码", { exact: true }).fill(password);
  await visitor.getByRole("button", { name: "登录", exact: true }).click();
  await expect(toast(visitor, "用户名或密码错误，或用户已被封禁")).toBeVisible();
  await loginViaUi(visitor, username, "new-password-1");
  await other.close();
});

test("a user deletes the account after typing the username, and is logged out", async ({ page }) => {
  const { username, password } = await newUserSession(page, "del");
  await page.goto("/setting");
  await card(page, "删除账户").getByRole("button", { name: "删除账户" }).click();
  const dialog = page.getByRole("dialog", { name: "确认删除账户" });
  const name = dialog.getByRole("textbox");

  await dialog.getByRole("button", { name: "确认删除" }).click();
  await expect(dialog.getByText("请输入你的账户名以确认删除！")).toBeVisible();
  await name.fill(`${username}x`);
  await dialog.getByRole("button", { name: "确认删除" }).click();
  await expect(dialog.getByText("请输入你的账户名以确认删除！")).toBeVisible();
  await shot(page, "settings-delete");

  await name.fill(username);
  await dialog.getByRole("button", { name: "确认删除" }).click();
  await expect(toast(page, "账户已删除！")).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);
  expect(await page.evaluate(() => localStorage.getItem("user"))).toBeNull();

  // The account is gone.
  await page.getByLabel("用户名", { exact: true }).fill(username);
  await page.getByLabel("密码", { exact: true }).fill(password);
  await page.getByRole("button", { name: "登录", exact: true }).click();
  await expect(toast(page, "用户名或密码错误，或用户已被封禁")).toBeVisible();
});

test.describe("as root", () => {
  test.use({ storageState: ROOT_STATE });

  test("root sees the super admin badge and its own tabs, and cannot delete itself", async ({ page }) => {
    await page.goto("/setting?tab=nosuchtab");
    await expect(page.getByRole("tab", { name: "个人设置" })).toHaveAttribute("aria-selected", "true");
    for (const name of ["运营设置", "系统设置", "其他设置", "迁移"]) await expect(page.getByRole("tab", { name })).toBeVisible();
    await expect(card(page, "个人信息").getByText("超级管理员")).toBeVisible();
    await shot(page, "settings-root");

    await page.goto("/setting?tab=personal");
    await card(page, "删除账户").getByRole("button", { name: "删除账户" }).click();
    const dialog = page.getByRole("dialog", { name: "确认删除账户" });
    await dialog.getByRole("textbox").fill("root");
    await dialog.getByRole("button", { name: "确认删除" }).click();
    await expect(toast(page, "不能删除超级管理员账户")).toBeVisible();
    await page.reload();
    await expect(page).toHaveURL(/\/setting\?tab=personal$/);
    await expect(card(page, "个人信息").getByText("超级管理员")).toBeVisible();
  });
});

// Root's password is what every other spec logs in with, and a new password must have 8 or more
// characters, so it could not be set back to 123456: this test runs on a server of its own.
test("root's default-password banner leads to the password form and goes away once the password is changed", async ({ browser }) => {
  test.setTimeout(180_000);
  const server = await startPrivateServer();
  const contexts = [await browser.newContext({ baseURL: server.baseURL }), await browser.newContext({ baseURL: server.baseURL })];
  try {
    const [earlier, page] = await Promise.all(contexts.map((c) => c.newPage()));
    await loginViaUi(earlier!, "root", "123456");
    await loginViaUi(page!, "root", "123456");
    const banner = page!.getByRole("alert").filter({ hasText: DEFAULT_PASSWORD_NOTICE });
    await expect(banner).toBeVisible();
    await banner.getByRole("link").click();
    await expect(page!).toHaveURL(/\/setting\?tab=personal$/);
    await expect(card(page!, "个人信息").getByText("超级管理员")).toBeVisible();

    const form = card(page!, "修改密码");
    await form.getByLabel("当前密码").fill("123456");
    await form.getByLabel("新密码", { exact: true }).fill("root-password-1");
    await form.getByLabel("确认新密码").fill("root-password-1");
    await form.getByRole("button", { name: "修改密码" }).click();
    await expect(toast(page!, "密码修改成功！")).toBeVisible();
    await expect(banner).toHaveCount(0);

    // This session goes on; it stays gone after a reload.
    await page!.reload();
    await expect(card(page!, "个人信息")).toBeVisible();
    await expect(page!.getByText(DEFAULT_PASSWORD_NOTICE)).toHaveCount(0);
    // The session opened before the change has ended.
    await earlier!.goto("/setting");
    await expect(earlier!).toHaveURL(/\/login/);
    await loginViaUi(earlier!, "root", "root-password-1");
    await expect(earlier!.getByText(DEFAULT_PASSWORD_NOTICE)).toHaveCount(0);
  } finally {
    for (const c of contexts) await c.close();
    await server.stop();
  }
});
