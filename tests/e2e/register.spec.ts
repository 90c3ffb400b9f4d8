// Register screen: validation, a new user registers and logs in, and sees no admin entries.
import { expect, test, DEFAULT_PASSWORD_NOTICE, loginViaUi, shot, sideMenu, uniqueName } from "./support";

test("validates the password and its confirmation", async ({ page }) => {
  await page.goto("/register");
  await expect(page.getByRole("heading", { name: "新用户注册" })).toBeVisible();
  await expect(page.getByPlaceholder("输入密码，最短 8 位，最长 20 位")).toBeVisible();
  await shot(page, "register");
  await page.getByLabel("用户名", { exact: true }).fill("someone");
  await page.getByLabel("密码", { exact: true }).fill("short");
  await page.getByLabel("确认密码", { exact: true }).fill("short");
  await page.getByRole("button", { name: "注册", exact: true }).click();
  await expect(page.getByText("密码长度不得小于 8 位！")).toBeVisible();
  await page.getByLabel("密码", { exact: true }).fill("longenough1");
  await page.getByLabel("确认密码", { exact: true }).fill("longenough2");
  await page.getByRole("button", { name: "注册", exact: true }).click();
  await expect(page.getByText("两次输入的密码不一致")).toBeVisible();
  // No e-mail fields while e-mail verification is off.
  await expect(page.getByLabel("邮箱")).toHaveCount(0);
});

test("a new user registers, logs in and sees the menu without admin entries", async ({ page }) => {
  const username = uniqueName("u");
  await page.goto("/register");
  await page.getByLabel("用户名", { exact: true }).fill(username);
  await page.getByLabel("密码", { exact: true }).fill("password123");
  await page.getByLabel("确认密码", { exact: true }).fill("password123");
  await page.getByRole("button", { name: "注册", exact: true }).click();
  await expect(page.getByText("注册成功！")).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);

  await loginViaUi(page, username, "password123");
  const menu = sideMenu(page);
  for (const entry of ["操练场", "模型价格", "令牌", "钱包", "日志", "设置"]) {
    await expect(menu.getByRole("link", { name: entry, exact: true })).toBeVisible();
  }
  for (const entry of ["渠道", "兑换码", "用户管理"]) {
    await expect(menu.getByRole("link", { name: entry, exact: true })).toHaveCount(0);
  }
  await expect(page.getByText(DEFAULT_PASSWORD_NOTICE)).toHaveCount(0);
  await expect(page.getByTestId("user-menu")).toContainText(username);

  // Admin pages are refused to an ordinary user.
  await page.goto("/channel");
  await expect(page).toHaveURL(/\/$/);
  // So are the super-admin settings tabs.
  await page.goto("/setting?tab=system");
  await expect(page).toHaveURL(/\/setting$/);
});
