// Narrow screens: the side menu hides behind a burger.
import { expect, test, shot, sideMenu } from "./support";
import { ROOT_STATE } from "./env";

test.use({ storageState: ROOT_STATE, viewport: { width: 390, height: 844 } });

test("the menu is collapsed behind a burger and opens on demand", async ({ page }) => {
  await page.goto("/token");
  await expect(page.getByRole("heading", { name: "令牌管理" })).toBeVisible();
  const tokenLink = page.locator('nav[aria-label="侧边菜单"] a[href="/token"]');
  await expect(tokenLink).not.toBeInViewport();
  await shot(page, "narrow-menu-closed");
  await page.getByRole("button", { name: "展开侧边栏" }).click();
  await expect(tokenLink).toBeVisible();
  await expect(tokenLink).toBeInViewport();
  // Let the slide-in transition finish before the screenshot.
  await expect.poll(async () => (await page.locator('nav[aria-label="侧边菜单"]').boundingBox())?.x).toBe(0);
  await shot(page, "narrow-menu-open");
  await sideMenu(page).getByRole("link", { name: "模型价格", exact: true }).click();
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(tokenLink).not.toBeInViewport();
});
