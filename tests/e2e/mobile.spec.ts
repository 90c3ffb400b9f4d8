// Narrow screens: the side menu hides behind a burger.
import { expect, expectFits, type Page, shot, sideMenu, test, uniqueName } from "./support";
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

// Issue 20.20: on a phone every list shows a card per row with its actions on screen, and no
// badge is cut to an ellipsis.
const LISTS = [
  { path: "/token", heading: "令牌管理", action: "复制" },
  { path: "/channel", heading: "渠道管理", action: "测试" },
  { path: "/user", heading: "用户管理", action: "编辑" },
  { path: "/redemption", heading: "兑换码管理", action: "复制" },
  { path: "/log", heading: "使用日志", action: null },
] as const;

async function seedEveryList(page: Page) {
  const tag = uniqueName("m");
  const post = async (url: string, data: unknown) => {
    const res = await (await page.request.post(url, { data, headers: { "New-Api-User": "1" } })).json();
    expect(res.success).toBe(true);
    return res.data;
  };
  await post("/api/token/", { name: `${tag}tok`, remain_quota: 500000, expired_time: -1, unlimited_quota: false });
  await post("/api/channel/", { type: 1, name: `${tag}ch`, key: "sk-narrow", models: "gpt-4o-mini", group: "default", mode: "single" });
  await post("/api/user/", { username: `${tag}u`, password: "password-123" });
  const codes = (await post("/api/redemption/", { name: `${tag}rd`, quota: 1000, count: 2 })) as string[];
  // A used code, and a top-up row in the log.
  await post("/api/user/topup", { key: codes[0] });
}

/** Badges whose text does not fit their box (drawn with an ellipsis). */
const cutBadges = (page: Page) =>
  page
    .locator("main .mantine-Badge-label")
    .evaluateAll((labels) => labels.filter((l) => l.scrollWidth > l.clientWidth).map((l) => l.textContent));

test("every list fits a phone: a card per row, all actions on screen, whole badges", async ({ page }) => {
  test.setTimeout(120_000);
  await seedEveryList(page);
  for (const scheme of ["light", "dark"] as const) {
    for (const list of LISTS) {
      await page.goto(list.path);
      await expect(page.getByRole("heading", { name: list.heading })).toBeVisible();
      if (scheme === "dark" && (await page.locator("html").getAttribute("data-mantine-color-scheme")) !== "dark") {
        await page.getByRole("button", { name: "切换明暗主题", exact: true }).click();
        await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
      }
      const rows = page.locator("main [data-row-id]");
      await expect(rows.first()).toBeVisible();
      await expectFits(page, 390);
      for (const row of await rows.all()) {
        if (list.action) await expect(row.getByRole("button", { name: list.action, exact: true })).toBeVisible();
        for (const button of await row.getByRole("button").all()) {
          const b = await button.boundingBox();
          expect(b, `a button of ${list.path} has no box`).not.toBeNull();
          expect(b!.x, `${await button.textContent()} on ${list.path} starts off screen`).toBeGreaterThanOrEqual(0);
          expect(b!.x + b!.width, `${await button.textContent()} on ${list.path} ends off screen`).toBeLessThanOrEqual(390);
        }
      }
      expect(await cutBadges(page)).toEqual([]);
      await shot(page, `narrow-list-${list.path.slice(1)}-${scheme}`);
    }
  }
});
