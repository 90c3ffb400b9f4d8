// The edit-user drawer's "账户安全" section through the real console: root clears a user's e-mail
// binding (set up through the admin API), force-disables the two-factor the user enabled through
// their own session (which then ends), and is told plainly when there is nothing to reset; an
// admin is not offered the two-factor reset. Screenshots in light, dark and at 390 px.
import { type APIRequestContext, request as playwrightRequest } from "@playwright/test";
import { generate } from "otplib";
import { E2E_BASE_URL, ROOT_STATE } from "./env";
import { expect, expectFits, loginViaUi, type Page, SCREENSHOT_DIR, test, toast, uniqueName } from "./support";

const AS_ROOT = { "New-Api-User": "1" };
const PASSWORD = "password-123";
const SHOTS = process.env.QIAO_E2E_SHOTS ?? SCREENSHOT_DIR;

/** The visible window once the drawer and dialogs have faded in. */
async function snap(page: Page, name: string) {
  await page.waitForTimeout(400);
  await page.screenshot({ path: `${SHOTS}/${name}.png` });
}

async function makeUser(request: APIRequestContext, prefix: string): Promise<{ id: number; username: string }> {
  const username = uniqueName(prefix);
  const made = await (await request.post("/api/user/", { data: { username, password: PASSWORD }, headers: AS_ROOT })).json();
  expect(made.success).toBe(true);
  return { id: made.data.id, username };
}

/** The user's own API client, signed in with the password (a fresh sign-in counts as verified). */
async function signedIn(username: string, id: number) {
  const own = await playwrightRequest.newContext({ baseURL: E2E_BASE_URL, extraHTTPHeaders: { "New-Api-User": String(id) } });
  const login = await (await own.post("/api/user/login", { data: { username, password: PASSWORD } })).json();
  expect(login.success).toBe(true);
  return own;
}

async function enableTwoFactor(own: APIRequestContext) {
  const setup = await (await own.post("/api/user/2fa/setup")).json();
  expect(setup.success).toBe(true);
  const enabled = await (await own.post("/api/user/2fa/enable", { data: { code: await generate({ secret: setup.data.secret }) } })).json();
  expect(enabled).toMatchObject({ success: true });
  expect((await (await own.get("/api/user/2fa/status")).json()).data.enabled).toBe(true);
}

const drawer = (page: Page) => page.getByRole("dialog", { name: "编辑用户" });

/** Clicks a section button, then the confirm dialog's button (or 取消). */
async function confirmVia(page: Page, button: string, title: string, answer: string) {
  await drawer(page).getByRole("button", { name: button }).click();
  const ask = page.getByRole("dialog", { name: title });
  await expect(ask).toBeVisible();
  await ask.getByRole("button", { name: answer }).click();
  await expect(ask).toBeHidden();
}

test.describe("as root", () => {
  test.use({ storageState: ROOT_STATE });

  test("clears a binding and resets two-factor and passkeys from the edit drawer", async ({ page }) => {
    const user = await makeUser(page.request, "sec");
    const email = `${user.username}@example.com`;
    const set = await (await page.request.put("/api/user/", { data: { id: user.id, email }, headers: AS_ROOT })).json();
    expect(set.success).toBe(true);
    const own = await signedIn(user.username, user.id);
    await enableTwoFactor(own);

    await page.goto(`/user/edit/${user.id}`);
    await expect(drawer(page).getByRole("textbox", { name: "用户名", exact: true })).toHaveValue(user.username);
    const emailField = drawer(page).getByLabel("已绑定的邮箱账户");
    await expect(emailField).toHaveValue(email);
    await expect(emailField).toHaveAttribute("readonly", "");
    await expect(drawer(page).getByLabel("已绑定的 OIDC 账户")).toHaveValue("");
    // Only what is bound can be cleared.
    await expect(drawer(page).getByRole("button", { name: /^清除/ })).toHaveCount(1);
    await drawer(page).getByRole("button", { name: "重置通行密钥" }).scrollIntoViewIfNeeded();
    await snap(page, "drawer-light");

    // Asked first: 取消 changes nothing.
    await confirmVia(page, "清除邮箱绑定", "确定要清除该用户的邮箱绑定吗？", "取消");
    await expect(emailField).toHaveValue(email);

    await drawer(page).getByRole("button", { name: "清除邮箱绑定" }).click();
    await snap(page, "confirm-clear-light");
    await page.getByRole("dialog", { name: "确定要清除该用户的邮箱绑定吗？" }).getByRole("button", { name: "清除" }).click();
    await expect(toast(page, "已清除该用户的绑定")).toBeVisible();
    await expect(emailField).toHaveValue("");
    await expect(drawer(page).getByRole("button", { name: "清除邮箱绑定" })).toHaveCount(0);
    const after = await (await page.request.get(`/api/user/${user.id}`, { headers: AS_ROOT })).json();
    expect(after.data.email).toBe("");

    // Two-factor off, and the user's sessions with it; a second reset finds nothing to do.
    await confirmVia(page, "重置两步验证", "确定要重置该用户的两步验证吗？", "重置");
    await expect(toast(page, "已强制停用该用户的两步验证")).toBeVisible();
    expect((await own.get("/api/user/self")).status()).toBe(401);
    await confirmVia(page, "重置两步验证", "确定要重置该用户的两步验证吗？", "重置");
    await expect(toast(page, "该账户未启用两步验证")).toBeVisible();
    const again = await signedIn(user.username, user.id);
    expect((await (await again.get("/api/user/2fa/status")).json()).data.enabled).toBe(false);

    // No passkeys: the server says so.
    await confirmVia(page, "重置通行密钥", "确定要重置该用户的通行密钥吗？", "重置");
    await expect(toast(page, "该用户尚未注册通行密钥")).toBeVisible();

    // The drawer still saves the rest of the form afterwards.
    await drawer(page).getByRole("button", { name: "提交" }).click();
    await expect(toast(page, "用户信息更新成功！").first()).toBeVisible();
    await expect(page).toHaveURL(/\/user$/);
    await Promise.all([own.dispose(), again.dispose()]);
  });

  test("the section in dark mode and on a 390 px phone", async ({ page }) => {
    const user = await makeUser(page.request, "secd");
    const email = `${user.username}@example.com`;
    expect((await (await page.request.put("/api/user/", { data: { id: user.id, email }, headers: AS_ROOT })).json()).success).toBe(true);

    // The drawer's overlay covers the theme switch: switch on the list first (the choice is kept).
    await page.goto("/user");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    await page.goto(`/user/edit/${user.id}`);
    await expect(drawer(page).getByLabel("已绑定的邮箱账户")).toHaveValue(email);
    await drawer(page).getByRole("button", { name: "重置通行密钥" }).scrollIntoViewIfNeeded();
    await snap(page, "drawer-dark");

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/user/edit/${user.id}`);
    await expect(drawer(page).getByLabel("已绑定的邮箱账户")).toHaveValue(email);
    await drawer(page).getByRole("button", { name: "重置两步验证" }).scrollIntoViewIfNeeded();
    await expectFits(page, 390);
    await snap(page, "drawer-narrow");
  });
});

test("an admin is offered the passkey reset but not the two-factor reset", async ({ browser }) => {
  const root = await browser.newContext({ storageState: ROOT_STATE });
  const admin = await makeUser(root.request, "seca");
  const promoted = await (
    await root.request.post("/api/user/manage", { data: { id: admin.id, action: "promote" }, headers: AS_ROOT })
  ).json();
  expect(promoted.data).toEqual({ role: 10, status: 1 });
  const plain = await makeUser(root.request, "secp");
  await root.close();

  const context = await browser.newContext();
  const page = await context.newPage();
  await loginViaUi(page, admin.username, PASSWORD);
  await page.goto(`/user/edit/${plain.id}`);
  await expect(drawer(page).getByRole("textbox", { name: "用户名", exact: true })).toHaveValue(plain.username);
  await expect(drawer(page).getByRole("button", { name: "重置通行密钥" })).toBeVisible();
  await expect(drawer(page).getByRole("button", { name: "重置两步验证" })).toHaveCount(0);
  await confirmVia(page, "重置通行密钥", "确定要重置该用户的通行密钥吗？", "重置");
  await expect(toast(page, "该用户尚未注册通行密钥")).toBeVisible();
  await context.close();
});
