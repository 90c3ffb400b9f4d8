// Light and dark: the console follows the OS until the user picks one with the top-bar switch;
// the pick is remembered across reloads and then wins over the OS.
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

test.describe("on a dark OS", () => {
  test.use({ colorScheme: "dark" });

  test("the OS decides until the user picks, from the first paint", async ({ page }) => {
    // The scheme the page had when <body> was first inserted: the head script has set it by then,
    // so nothing is ever painted in the wrong scheme.
    await page.addInitScript(() => {
      new MutationObserver((_, observer) => {
        if (!document.body) return;
        (window as unknown as { schemeAtBody: string | null }).schemeAtBody =
          document.documentElement.getAttribute("data-mantine-color-scheme");
        observer.disconnect();
      }).observe(document, { childList: true, subtree: true });
    });
    const html = page.locator("html");
    const schemeAtBody = () => page.evaluate(() => (window as unknown as { schemeAtBody: string | null }).schemeAtBody);

    await page.goto("/login");
    await expect(html).toHaveAttribute("data-mantine-color-scheme", "dark");
    expect(await schemeAtBody()).toBe("dark");
    await expect(page.getByRole("heading", { name: "用户登录" })).toBeVisible();
    // Still following: the OS turning light turns the console light.
    await page.emulateMedia({ colorScheme: "light" });
    await expect(html).toHaveAttribute("data-mantine-color-scheme", "light");
    await page.emulateMedia({ colorScheme: "dark" });
    await expect(html).toHaveAttribute("data-mantine-color-scheme", "dark");

    // A pick (light, on a dark OS) is remembered and wins over the OS from then on.
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(html).toHaveAttribute("data-mantine-color-scheme", "light");
    await page.reload();
    await expect(html).toHaveAttribute("data-mantine-color-scheme", "light");
    expect(await schemeAtBody()).toBe("light");
    await page.emulateMedia({ colorScheme: "light" });
    await page.emulateMedia({ colorScheme: "dark" });
    await expect(html).toHaveAttribute("data-mantine-color-scheme", "light");
  });
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
