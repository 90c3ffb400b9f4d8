// Login screen: validation, root login with the default-password notice, logout, expired notice.
import { expect, test, DEFAULT_PASSWORD_NOTICE, loginViaUi, shot, sideMenu } from "./support";
import { ROOT_STATE } from "./env";

test("asks for username and password", async ({ page }) => {
  await page.goto("/login");
  await expect(page.getByRole("heading", { name: "用户登录" })).toBeVisible();
  await shot(page, "login-light");
  await page.getByRole("button", { name: "登录", exact: true }).click();
  await expect(page.getByText("请输入用户名和密码！")).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);
});

test("root logs in, sees the default-password notice and the admin menu, then logs out", async ({ page }) => {
  await loginViaUi(page, "root", "123456");
  await expect(page.getByText("登录成功！")).toBeVisible();
  const notice = page.getByRole("alert").filter({ hasText: DEFAULT_PASSWORD_NOTICE });
  await expect(notice).toBeVisible();
  await expect(notice.getByRole("link")).toHaveAttribute("href", "/setting?tab=personal");
  await expect(page.getByText("令牌无法精确控制使用额度，只允许自用，请勿直接将令牌分发给他人。")).toBeVisible();
  for (const entry of ["操练场", "模型价格", "渠道", "令牌", "兑换码", "充值订单", "钱包", "用户管理", "日志", "设置"]) {
    await expect(sideMenu(page).getByRole("link", { name: entry, exact: true })).toBeVisible();
  }
  await expect(page.getByTestId("user-menu")).toContainText("root");
  await page.waitForTimeout(300); // let the success toast settle before the screenshot
  await shot(page, "token-root");

  // The notice follows root to other pages.
  await page.getByRole("link", { name: "首页", exact: true }).click();
  await expect(page.getByRole("alert").filter({ hasText: DEFAULT_PASSWORD_NOTICE })).toBeVisible();

  // The session ends on the server: the logout call (POST with New-Api-User) succeeds.
  const loggedOut = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/user/logout");
  await page.getByTestId("user-menu").click();
  await page.getByRole("menuitem", { name: "退出" }).click();
  const answer = await loggedOut;
  expect(answer.request().method()).toBe("POST");
  expect(await answer.json()).toMatchObject({ success: true });
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole("link", { name: "注册", exact: true })).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem("user"))).toBeNull();
  await page.goto("/token");
  await expect(page).toHaveURL(/\/login$/);
});

test("a wrong password is refused with the server's message", async ({ page }) => {
  await page.goto("/login");
  await page.getByLabel("用户名", { exact: true }).fill("root");
  await page.getByLabel("密码", { exact: true }).fill("wrong-password");
  await page.getByRole("button", { name: "登录", exact: true }).click();
  await expect(page.locator(".mantine-Notification-root")).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);
  expect(await page.evaluate(() => localStorage.getItem("user"))).toBeNull();
});

test("keeps the invite code of ?aff= for registration", async ({ page }) => {
  await page.goto("/login?aff=ABCD");
  await expect(page.getByRole("heading", { name: "用户登录" })).toBeVisible();
  await expect.poll(() => page.evaluate(() => localStorage.getItem("aff"))).toBe("ABCD");
});

test.describe("with Turnstile on", () => {
  test.use({ storageState: ROOT_STATE });

  test("login waits for the Turnstile token", async ({ page, browser }) => {
    const set = (key: string, value: string) =>
      page.request.put("/api/option/", { data: { key, value }, headers: { "New-Api-User": "1" } });
    try {
      expect((await set("TurnstileSiteKey", "1x00000000000000000000AA")).ok()).toBe(true);
      expect((await set("TurnstileSecretKey", "1x0000000000000000000000000000000AA")).ok()).toBe(true);
      expect((await set("TurnstileCheckEnabled", "true")).ok()).toBe(true);
      const visitor = await browser.newPage();
      await visitor.goto("/login");
      await expect(visitor.getByTestId("turnstile")).toBeAttached();
      await visitor.getByLabel("用户名", { exact: true }).fill("root");
      await visitor.getByLabel("密码", { exact: true }).fill("123456");
      await visitor.getByRole("button", { name: "登录", exact: true }).click();
      await expect(visitor.getByText("请稍后几秒重试，Turnstile 正在检查用户环境！")).toBeVisible();
      await expect(visitor).toHaveURL(/\/login$/);
      await visitor.close();
    } finally {
      await set("TurnstileCheckEnabled", "false");
    }
  });
});
