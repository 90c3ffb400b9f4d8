// Wide screens: the side menu collapses and expands; DefaultCollapseSidebar starts it collapsed.
import { expect, shot, test } from "./support";
import { E2E_BASE_URL, ROOT_STATE } from "./env";

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

// Issue 20.16: the menu never links to a page that does not exist, and Next prefetches none. 绘图 and
// 异步任务 are off by default; switched on (an imported new-api database has both on) they appear
// and lead to their pages. Every page root walks through the menu is checked.
test("the menu offers no page that does not exist, and nothing prefetches one", async ({ page }) => {
  const setOption = (key: string, value: string) =>
    page.request.put("/api/option/", { data: { key, value }, headers: { "New-Api-User": "1" } });
  const status = await (await page.request.get("/api/status")).json();
  expect(status.data).toMatchObject({ enable_drawing: false, enable_task: false });

  const missing: string[] = [];
  const errors: string[] = [];
  page.on("response", (res) => {
    if (res.status() === 404 && res.url().startsWith(E2E_BASE_URL)) missing.push(res.url());
  });
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(msg.text());
  });
  try {
    for (const key of ["DrawingEnabled", "TaskEnabled", "DataExportEnabled"]) expect((await setOption(key, "true")).ok()).toBe(true);
    await page.goto("/token");
    const menu = page.getByRole("navigation", { name: "侧边菜单" });
    await expect(menu.getByRole("link", { name: "数据看板" })).toBeVisible();
    await expect(menu.getByRole("link", { name: "绘图" })).toBeVisible();
    await expect(menu.getByRole("link", { name: "异步任务" })).toBeVisible();
    const hrefs = await menu.getByRole("link").evaluateAll((links) => links.map((a) => a.getAttribute("href")!));
    for (const href of hrefs) {
      await menu.locator(`a[href="${href}"]`).click();
      await expect(page).toHaveURL(new RegExp(`${href.replace(/[?]/g, "\\?")}`));
      await expect(page.getByText("页面不存在")).toHaveCount(0);
    }
    // Let the last page's prefetches finish before counting.
    await page.goto("/setting");
    expect(missing).toEqual([]);
    expect(errors).toEqual([]);

    // The menu with every flag on, as root sees it.
    await shot(page, "menu-flags-on-light");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    await shot(page, "menu-flags-on-dark");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole("button", { name: "展开侧边栏" }).click();
    await expect(menu.getByRole("link", { name: "设置" })).toBeInViewport();
    await shot(page, "menu-flags-on-390");
  } finally {
    for (const key of ["DrawingEnabled", "TaskEnabled"]) await setOption(key, "false");
    await setOption("DataExportEnabled", String(status.data.enable_data_export));
  }
});
