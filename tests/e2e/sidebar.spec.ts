// Wide screens: the side menu collapses and expands; DefaultCollapseSidebar starts it collapsed.
import { expect, test } from "./support";
import { ROOT_STATE } from "./env";

test.use({ storageState: ROOT_STATE });

test("the side menu can be collapsed and starts collapsed when the admin says so", async ({ page }) => {
  const tokenLink = page.locator('nav[aria-label="侧边菜单"] a[href="/token"]');
  await page.goto("/token");
  await expect(tokenLink).toBeInViewport();
  await page.getByRole("button", { name: "收起侧边栏" }).click();
  await expect(tokenLink).not.toBeInViewport();
  await page.getByRole("button", { name: "展开侧边栏" }).click();
  await expect(tokenLink).toBeInViewport();

  const setCollapse = (value: string) =>
    page.request.put("/api/option/", { data: { key: "DefaultCollapseSidebar", value }, headers: { "New-Api-User": "1" } });
  try {
    expect((await setCollapse("true")).ok()).toBe(true);
    await page.reload();
    await expect.poll(() => page.evaluate(() => localStorage.getItem("default_collapse_sidebar"))).toBe("true");
    await page.reload();
    await expect(page.getByRole("button", { name: "展开侧边栏" })).toBeVisible();
    await expect(tokenLink).not.toBeInViewport();
    await page.getByRole("button", { name: "展开侧边栏" }).click();
    await expect(tokenLink).toBeInViewport();
  } finally {
    await setCollapse("false");
  }
});
