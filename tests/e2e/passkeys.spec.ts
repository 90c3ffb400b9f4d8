// Passkeys in real Chromium with a virtual authenticator (the DevTools protocol's WebAuthn
// domain): a user adds a passkey in personal settings, signs out, signs in with it and no
// password, and removes it. WebAuthn refuses an IP address as the relying party, so this spec
// opens the console at localhost rather than 127.0.0.1. Screenshots of the card and the login
// button in light, dark and at 390 px.
import type { Page } from "@playwright/test";
import { E2E_PORT } from "./env";
import { expect, expectFits, loginViaUi, shot, test, toast, uniqueName } from "./support";

test.use({ baseURL: `http://localhost:${E2E_PORT}` });

const card = (page: Page) => page.getByRole("region", { name: "通行密钥" });

/** A platform authenticator that holds resident keys and verifies its user, as a phone or laptop does. */
async function addVirtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  return {
    credentials: async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials,
  };
}

async function toggleTheme(page: Page, scheme: "dark" | "light") {
  await page.getByRole("button", { name: "切换明暗主题" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", scheme);
}

async function narrowShot(page: Page, name: string) {
  await page.setViewportSize({ width: 390, height: 844 });
  // Polled: the cards that change layout by a media query settle a frame after the resize.
  await expectFits(page, 390);
  await shot(page, name);
  await page.setViewportSize({ width: 1280, height: 800 });
}

test("add a passkey, sign out, sign in with it and no password, remove it", async ({ page }) => {
  const authenticator = await addVirtualAuthenticator(page);
  const username = uniqueName("pk");
  const password = "password-123";
  const registered = await page.request.post("/api/user/register", { data: { username, password, password2: password } });
  expect((await registered.json()).success).toBe(true);
  await loginViaUi(page, username, password);

  // Add one in personal settings.
  await page.goto("/setting");
  await expect(card(page).getByText("尚未添加通行密钥")).toBeVisible();
  await card(page).getByLabel("名称").fill("虚拟验证器");
  await card(page).getByRole("button", { name: "添加通行密钥" }).click();
  await expect(toast(page, "通行密钥已添加")).toBeVisible();
  await expect(card(page).getByText("虚拟验证器")).toBeVisible();
  await expect(card(page).getByText("从未使用")).toBeVisible();
  const [credential] = await authenticator.credentials();
  expect(credential?.isResidentCredential).toBe(true);

  await card(page).scrollIntoViewIfNeeded();
  await shot(page, "passkeys-card-light");
  await toggleTheme(page, "dark");
  await shot(page, "passkeys-card-dark");
  await toggleTheme(page, "light");
  await card(page).scrollIntoViewIfNeeded();
  await narrowShot(page, "passkeys-card-390");

  // Sign out, then in with the passkey: nothing is typed.
  await page.getByTestId("user-menu").click();
  await page.getByRole("menuitem", { name: "退出" }).click();
  await expect(page).toHaveURL(/\/login$/);
  const button = page.getByRole("button", { name: "使用通行密钥登录" });
  await expect(button).toBeVisible();
  await shot(page, "passkeys-login-light");
  await toggleTheme(page, "dark");
  await shot(page, "passkeys-login-dark");
  await toggleTheme(page, "light");
  await narrowShot(page, "passkeys-login-390");

  const finished = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/user/passkey/login/finish");
  await button.click();
  expect(await (await finished).json()).toMatchObject({ success: true, data: { username } });
  await expect(page).toHaveURL(/\/token$/);
  await expect(page.getByTestId("user-menu")).toContainText(username);
  await expect(page.getByLabel("密码", { exact: true })).toHaveCount(0);

  // The card shows the use; removing asks first.
  await page.goto("/setting");
  await expect(card(page).getByText("虚拟验证器")).toBeVisible();
  await expect(card(page).getByText("从未使用")).toHaveCount(0);
  await card(page).getByRole("button", { name: "删除通行密钥 虚拟验证器" }).click();
  const dialog = page.getByRole("dialog", { name: "删除通行密钥" });
  await expect(dialog.getByText("确定删除通行密钥「虚拟验证器」吗？删除后将不能再用它登录。")).toBeVisible();
  await dialog.getByRole("button", { name: "删除" }).click();
  await expect(toast(page, "通行密钥已删除")).toBeVisible();
  await expect(card(page).getByText("尚未添加通行密钥")).toBeVisible();

  // The authenticator still holds the key, but the server no longer knows it.
  await page.getByTestId("user-menu").click();
  await page.getByRole("menuitem", { name: "退出" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.getByRole("button", { name: "使用通行密钥登录" }).click();
  await expect(toast(page, "未找到该通行密钥，它可能已被删除，请使用其他方式登录")).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);
});
