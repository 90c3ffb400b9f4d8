// The dark/light switch is remembered across reloads.
import { expect, test, shot } from "./support";
import { ROOT_STATE } from "./env";

test("dark mode persists across a reload", async ({ page }) => {
  await page.goto("/login");
  const html = page.locator("html");
  await expect(html).toHaveAttribute("data-mantine-color-scheme", "light");
  await page.getByRole("button", { name: "切换明暗主题" }).click();
  await expect(html).toHaveAttribute("data-mantine-color-scheme", "dark");
  await page.reload();
  await expect(html).toHaveAttribute("data-mantine-color-scheme", "dark");
  await expect(page.getByRole("heading", { name: "用户登录" })).toBeVisible();
  await shot(page, "login-dark");
  await page.getByRole("button", { name: "切换明暗主题" }).click();
  await expect(html).toHaveAttribute("data-mantine-color-scheme", "light");
  await page.reload();
  await expect(html).toHaveAttribute("data-mantine-color-scheme", "light");
});

test.describe("console in dark mode", () => {
  test.use({ storageState: ROOT_STATE });

  test("menu, notice and content stay readable", async ({ page }) => {
    await page.goto("/token");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    await expect(page.getByRole("heading", { name: "令牌管理" })).toBeVisible();
    await shot(page, "token-root-dark");
  });
});
