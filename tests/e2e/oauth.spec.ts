// GitHub, LinuxDO and OIDC through the real console against mock providers on loopback
// (tests/mocks/oauth2-provider.ts, tests/mocks/oidc-provider.ts): each as a sign-in from the login
// page and as a binding from personal settings, the provider opening in a new window; a sign-up
// with an invitation code; the account made that way setting its first password; unbinding. The
// provider base URLs are environment variables, so these run on a server of their own
// (tests/e2e/private-server.ts). Screenshots of the login page and the bindings card in light,
// dark and at 390 px (QIAO_SHOTS_DIR, else test-results/screenshots).
import type { APIRequestContext, Browser, BrowserContext, Locator } from "@playwright/test";
import { type OAuth2Mock, startGitHubMock, startLinuxDoMock } from "../mocks/oauth2-provider";
import { type OidcMock, startOidcMock } from "../mocks/oidc-provider";
import { type PrivateServer, startPrivateServer } from "./private-server";
import { expect, expectFits, loginViaUi, type Page, SCREENSHOT_DIR, setOption, test, toast, uniqueName } from "./support";

test.describe.configure({ mode: "serial" });

let server: PrivateServer;
let github: OAuth2Mock;
let linuxdo: OAuth2Mock;
let idp: OidcMock;
let root: APIRequestContext;

const SHOTS = process.env.QIAO_SHOTS_DIR || SCREENSHOT_DIR;
const snap = (target: Page | Locator, name: string) =>
  "goto" in target
    ? target.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true })
    : target.screenshot({ path: `${SHOTS}/${name}.png` });

const newContext = (browser: Browser, width = 1280): Promise<BrowserContext> =>
  browser.newContext({ baseURL: server.baseURL, viewport: { width, height: 800 } });

test.beforeAll(async ({ playwright }) => {
  test.setTimeout(180_000);
  [github, linuxdo, idp] = await Promise.all([startGitHubMock(), startLinuxDoMock(), startOidcMock()]);
  server = await startPrivateServer({
    GITHUB_OAUTH_BASE_URL: github.url,
    GITHUB_API_BASE_URL: github.url,
    LINUXDO_BASE_URL: linuxdo.url,
  });
  root = await playwright.request.newContext({ baseURL: server.baseURL, extraHTTPHeaders: { "New-Api-User": "1" } });
  expect((await (await root.post("/api/user/login", { data: { username: "root", password: "123456" } })).json()).success).toBe(true);
  // The provider comes back to the address the browser uses: its cookies go with it.
  await setOption(root, "ServerAddress", server.baseURL);
  for (const [key, value] of [
    ["GitHubClientId", github.clientId],
    ["GitHubClientSecret", github.clientSecret],
    ["GitHubOAuthEnabled", "true"],
    ["LinuxDOClientId", linuxdo.clientId],
    ["LinuxDOClientSecret", linuxdo.clientSecret],
    ["LinuxDOOAuthEnabled", "true"],
    ["oidc.client_id", idp.clientId],
    ["oidc.client_secret", idp.clientSecret],
    ["oidc.well_known", idp.wellKnown],
    ["oidc.enabled", "true"],
    // Every provider on, for the login page's screenshot (WeChat and Telegram show once their flows exist).
    ["WeChatServerAddress", "https://wechat.example.com"],
    ["WeChatServerToken", "wx-e2e-token"],
    ["WeChatAuthEnabled", "true"],
    ["TelegramBotToken", "123456:e2e-token"],
    ["TelegramBotName", "qiao_e2e_bot"],
    ["TelegramOAuthEnabled", "true"],
    ["QuotaForNewUser", "100"],
    ["QuotaForInvitee", "20"],
    ["QuotaForInviter", "30"],
  ] as const) {
    await setOption(root, key, value);
  }
});

test.afterAll(async () => {
  await root?.dispose();
  await server?.stop();
  await Promise.all([github?.close(), linuxdo?.close(), idp?.close()]);
});

let accountSeq = 0;

/** Clicks what opens the provider and gives the new window. */
async function openProvider(context: BrowserContext, click: () => Promise<void>): Promise<Page> {
  const [popup] = await Promise.all([context.waitForEvent("page"), click()]);
  return popup;
}

const storedUser = (page: Page) =>
  page.evaluate(() => JSON.parse(localStorage.getItem("user") ?? "null") as { id: number; username: string });

const adminView = async (id: number) => (await (await root.get(`/api/user/${id}`)).json()).data as Record<string, unknown>;

const bindingsCard = (page: Page) => page.getByRole("region", { name: "账户绑定" });
const bindingRow = (page: Page, binding: string) => bindingsCard(page).getByTestId(`binding-${binding}`);

/** A registered user with an invite code, through the API. */
async function inviter(playwright: { request: { newContext: (o: object) => Promise<APIRequestContext> } }) {
  const api = await playwright.request.newContext({ baseURL: server.baseURL });
  const username = uniqueName("inv");
  await api.post("/api/user/register", { data: { username, password: "password-123", password2: "password-123" } });
  const login = await (await api.post("/api/user/login", { data: { username, password: "password-123" } })).json();
  const id = login.data.id as number;
  const code = (await (await api.get("/api/user/aff", { headers: { "New-Api-User": String(id) } })).json()).data as string;
  await api.dispose();
  return { id, code };
}

test("the login page offers GitHub, LinuxDO and OIDC: light, dark and 390 px", async ({ browser }) => {
  for (const [width, name] of [
    [1280, "oauth-login"],
    [390, "oauth-login-390"],
  ] as const) {
    const context = await newContext(browser, width);
    const page = await context.newPage();
    await page.goto("/login");
    await expect(page.getByText("第三方登录")).toBeVisible();
    for (const label of ["GitHub", "LinuxDO", "OIDC"]) await expect(page.getByRole("button", { name: label, exact: true })).toBeVisible();
    await expectFits(page, width);
    await snap(page, name);
    if (width === 1280) {
      await page.getByRole("button", { name: "切换明暗主题" }).click();
      await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
      await snap(page, "oauth-login-dark");
    }
    await context.close();
  }
});

test("GitHub signs up a new account in a new window with the invitation code; both windows end on /token", async ({
  browser,
  playwright,
}) => {
  const { id: inviterId, code } = await inviter(playwright);
  const before = await adminView(inviterId);
  const context = await newContext(browser);
  const page = await context.newPage();
  await page.goto(`/login?aff=${code}`);
  github.account = { id: 880000 + ++accountSeq, login: `octo${accountSeq}`, name: "Octo Cat" };
  const popup = await openProvider(context, () => page.getByRole("button", { name: "GitHub", exact: true }).click());
  await expect(toast(popup, "登录成功！")).toBeVisible();
  await expect(popup).toHaveURL(/\/token$/);
  await expect(page).toHaveURL(/\/token$/);

  const me = await storedUser(popup);
  expect(me.username).toMatch(/^github_[0-9a-f]{8}$/);
  expect(await adminView(me.id)).toMatchObject({
    github_id: String(github.account.id),
    display_name: "Octo Cat",
    quota: 120,
    inviter_id: inviterId,
  });
  const after = await adminView(inviterId);
  expect(after.aff_count).toBe((before.aff_count as number) + 1);
  expect(after.aff_quota).toBe((before.aff_quota as number) + 30);

  // Signed up without a password: the password card sets the first one; until then GitHub is its only way in.
  await popup.goto("/setting");
  await bindingRow(popup, "github").getByRole("button", { name: "解绑GitHub" }).click();
  await popup.getByRole("dialog").getByRole("button", { name: "解除绑定" }).click();
  await expect(toast(popup, "这是该账户唯一可用的登录方式，请先设置密码或绑定其他登录方式")).toBeVisible();
  const card = popup.getByRole("region", { name: "设置密码" });
  await expect(card.getByLabel("当前密码")).toHaveCount(0);
  await card.getByLabel("新密码", { exact: true }).fill("first-password-1");
  await card.getByLabel("确认新密码").fill("first-password-1");
  await card.getByRole("button", { name: "设置密码" }).click();
  await expect(toast(popup, "密码设置成功！")).toBeVisible();
  await expect(popup.getByRole("region", { name: "修改密码" }).getByLabel("当前密码")).toBeVisible();
  await bindingRow(popup, "github").getByRole("button", { name: "解绑GitHub" }).click();
  await popup.getByRole("dialog").getByRole("button", { name: "解除绑定" }).click();
  await expect(toast(popup, "解绑成功")).toBeVisible();
  await expect(bindingRow(popup, "github")).toContainText("未绑定");
  await context.close();
});

test("LinuxDO and OIDC sign in from the login page: a new account, then the same one again", async ({ browser }) => {
  for (const [label, provider] of [
    ["LinuxDO", "linuxdo"],
    ["OIDC", "oidc"],
  ] as const) {
    let ids: number[] = [];
    if (provider === "linuxdo") linuxdo.account = { id: 770000 + ++accountSeq, login: `tux${accountSeq}`, name: "Tux" };
    else
      idp.account = { sub: `e2e-sub-${++accountSeq}`, name: "Idp Person", preferred_username: `idp${accountSeq}`, email: "p@idp.example" };
    for (let round = 0; round < 2; round++) {
      const context = await newContext(browser);
      const page = await context.newPage();
      await page.goto("/login");
      const popup = await openProvider(context, () => page.getByRole("button", { name: label, exact: true }).click());
      await expect(toast(popup, "登录成功！")).toBeVisible();
      await expect(popup).toHaveURL(/\/token$/);
      const me = await storedUser(popup);
      expect(me.username).toMatch(new RegExp(`^${provider}_[0-9a-f]{8}$`));
      ids = [...ids, me.id];
      await context.close();
    }
    expect(ids[1]).toBe(ids[0]);
    const view = await adminView(ids[0]!);
    expect(provider === "linuxdo" ? view.linux_do_id : view.oidc_id).toBe(
      provider === "linuxdo" ? String(linuxdo.account.id) : idp.account.sub,
    );
  }
});

test("personal settings bind GitHub, LinuxDO and OIDC in a new window; an id bound elsewhere is refused", async ({ browser }) => {
  const context = await newContext(browser);
  const page = await context.newPage();
  const username = uniqueName("bind");
  await page.request.post("/api/user/register", { data: { username, password: "password-123", password2: "password-123" } });
  await loginViaUi(page, username, "password-123");
  await page.goto("/setting");
  for (const label of ["GitHub", "LinuxDO", "OIDC"]) {
    await expect(bindingsCard(page).getByText(label, { exact: true })).toBeVisible();
  }
  await snap(bindingsCard(page), "oauth-bindings-empty");

  const accounts = {
    github: () => {
      github.account = { id: 660000 + ++accountSeq, login: `binder${accountSeq}`, name: "Binder" };
      return String(github.account.id);
    },
    linuxdo: () => {
      linuxdo.account = { id: 550000 + ++accountSeq, login: `ldb${accountSeq}`, name: "LD Binder" };
      return String(linuxdo.account.id);
    },
    oidc: () => {
      idp.account = { sub: `bind-sub-${++accountSeq}`, name: "Sub Binder", preferred_username: `sb${accountSeq}`, email: "sb@idp.example" };
      return idp.account.sub;
    },
  };
  for (const provider of ["github", "linuxdo", "oidc"] as const) {
    const id = accounts[provider]();
    const popup = await openProvider(context, () => bindingRow(page, provider).getByRole("button", { name: "绑定", exact: true }).click());
    await expect(toast(popup, "绑定成功！")).toBeVisible();
    await expect(popup).toHaveURL(/\/setting$/);
    await popup.close();
    // The window that opened it shows the binding without a reload.
    await expect(bindingRow(page, provider)).toContainText(id);
  }
  await snap(bindingsCard(page), "oauth-bindings");
  await page.getByRole("button", { name: "切换明暗主题" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
  await snap(bindingsCard(page), "oauth-bindings-dark");
  await page.getByRole("button", { name: "切换明暗主题" }).click();

  // Another account cannot bind the GitHub account this one holds.
  const other = await newContext(browser);
  const otherPage = await other.newPage();
  const otherName = uniqueName("bind2");
  await otherPage.request.post("/api/user/register", {
    data: { username: otherName, password: "password-123", password2: "password-123" },
  });
  await loginViaUi(otherPage, otherName, "password-123");
  await otherPage.goto("/setting");
  const popup = await openProvider(other, () => bindingRow(otherPage, "github").getByRole("button", { name: "绑定", exact: true }).click());
  await expect(toast(popup, "该 GitHub 账户已被其他用户绑定")).toBeVisible();
  await expect(popup).toHaveURL(/\/setting$/);
  await expect(bindingRow(otherPage, "github")).toContainText("未绑定");
  await other.close();

  // Unbinding asks first; this account keeps its password, so it may.
  await bindingRow(page, "linuxdo").getByRole("button", { name: "解绑LinuxDO" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "取消" }).click();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(bindingRow(page, "linuxdo")).not.toContainText("未绑定");
  await bindingRow(page, "linuxdo").getByRole("button", { name: "解绑LinuxDO" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "解除绑定" }).click();
  await expect(toast(page, "解绑成功")).toBeVisible();
  await expect(bindingRow(page, "linuxdo")).toContainText("未绑定");
  await context.close();

  // A phone.
  const phone = await newContext(browser, 390);
  const small = await phone.newPage();
  await loginViaUi(small, username, "password-123");
  await small.goto("/setting");
  await expect(bindingRow(small, "github")).not.toContainText("未绑定");
  await expectFits(small, 390);
  await snap(bindingsCard(small), "oauth-bindings-390");
  await phone.close();
});

test("root's OIDC block reads the endpoints from the well-known document when saving; the button takes its name", async ({ browser }) => {
  const context = await newContext(browser);
  const page = await context.newPage();
  try {
    await loginViaUi(page, "root", "123456");
    await page.goto("/setting?tab=system");
    const oidc = page.getByRole("region", { name: "配置 OIDC" });
    await expect(oidc.getByText(`${server.baseURL}/oauth/oidc`)).toBeVisible();
    await expect(oidc.getByLabel("Authorization Endpoint")).toHaveValue("");
    await expect(oidc.getByLabel("Client Secret")).toHaveAttribute("placeholder", "已设置");
    await oidc.getByLabel("登录按钮名称").fill("企业 SSO");
    await oidc.getByRole("button", { name: "保存 OIDC 设置" }).click();
    await expect(toast(page, "保存成功")).toBeVisible();
    await expect(oidc.getByLabel("Authorization Endpoint")).toHaveValue(`${idp.url}/authorize`);
    await expect(oidc.getByLabel("Token Endpoint")).toHaveValue(`${idp.url}/token`);
    await expect(oidc.getByLabel("User Info Endpoint")).toHaveValue(`${idp.url}/userinfo`);
    await snap(oidc, "oauth-oidc-settings");
    // A plain-http address elsewhere than this machine is refused before anything is sent.
    await oidc.getByLabel("Well-Known URL").fill("http://idp.example.com/.well-known/openid-configuration");
    await oidc.getByRole("button", { name: "保存 OIDC 设置" }).click();
    await expect(oidc.getByText("Well-Known URL 必须是 https:// 地址（仅本机地址可以使用 http://）")).toBeVisible();

    const visitor = await newContext(browser);
    const login = await visitor.newPage();
    await login.goto("/login");
    await expect(login.getByRole("button", { name: "企业 SSO", exact: true })).toBeVisible();
    await visitor.close();
  } finally {
    await setOption(root, "oidc.display_name", "");
    await context.close();
  }
});
