// Page guard, expired sessions and the not-found page.
import { expect, expectFits, forgedSessionCookie, newUserSession, type Page, shot, sideMenu, test } from "./support";
import { E2E_BASE_URL, ROOT_STATE } from "./env";

test.describe("logged out", () => {
  test("a console page sends the visitor to /login", async ({ page }) => {
    await page.goto("/token");
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByRole("heading", { name: "用户登录" })).toBeVisible();
    await expect(page.getByTestId("expired-notice")).toHaveCount(0);
  });

  test("public pages stay open", async ({ page }) => {
    await page.goto("/about");
    await expect(page).toHaveURL(/\/about$/);
    await expect(page.getByRole("heading", { name: "关于" })).toBeVisible();
  });

  test("an unknown path shows the not-found page, not a login redirect", async ({ page }) => {
    const res = await page.goto("/no/such/page");
    expect(res?.status()).toBe(404);
    await expect(page.getByText("页面不存在")).toBeVisible();
    await expect(page.getByText("请检查你的浏览器地址是否正确")).toBeVisible();
    await shot(page, "not-found");
  });

  test("the expired notice on /login?expired=true", async ({ page }) => {
    await page.goto("/login?expired=true");
    await expect(page.getByTestId("expired-notice")).toHaveText("未登录或登录已过期，请重新登录！");
  });
});

test.describe("expired session", () => {
  test.use({ storageState: ROOT_STATE });

  test("an API 401 clears the stored user and lands on /login?expired=true", async ({ page, context }) => {
    await page.goto("/token");
    await expect(page.getByRole("heading", { name: "令牌管理" })).toBeVisible();
    // Leave the page first: a request it makes after the cookie swap would get the 401 and
    // navigate on its own, aborting the navigation below.
    await page.goto("about:blank");
    // The session ends behind the console's back: the cookie still looks valid to the page guard,
    // but the server no longer knows this session.
    await context.clearCookies();
    await context.addCookies([{ name: "qiao_session", value: await forgedSessionCookie(), url: E2E_BASE_URL, httpOnly: true }]);
    // The page's own 401 handling navigates away, possibly before "load": wait only for the
    // response, or that navigation aborts this one.
    await page.goto("/token", { waitUntil: "commit" });
    await expect(page).toHaveURL(/\/login\?expired=true$/);
    await expect(page.getByTestId("expired-notice")).toHaveText("未登录或登录已过期，请重新登录！");
    expect(await page.evaluate(() => localStorage.getItem("user"))).toBeNull();
    await expect(page.getByRole("link", { name: "登录", exact: true })).toBeVisible();
  });

  test("a tampered or expired cookie is sent to /login?expired=true by the guard", async ({ page, context }) => {
    await context.addCookies([{ name: "qiao_session", value: "not-a-jwt", url: E2E_BASE_URL, httpOnly: true }]);
    await page.goto("/log");
    await expect(page).toHaveURL(/\/login\?expired=true$/);
    await expect(page.getByTestId("expired-notice")).toBeVisible();
  });
});

// Issue 20.15: the session goes while the console is open (its cookie deleted, as when it expires
// in the browser). Whatever the click does next (a list's 查询, a menu entry) ends on the expired
// notice in a logged-out frame, not on the plain login page inside the old menu and avatar.
test.describe("session gone mid-use", () => {
  const loggedOutFrame = async (page: Page) => {
    await expect(page).toHaveURL(/\/login\?expired=true$/);
    await expect(page.getByTestId("expired-notice")).toHaveText("未登录或登录已过期，请重新登录！");
    await expect(sideMenu(page)).toHaveCount(0);
    await expect(page.getByTestId("user-menu")).toHaveCount(0);
    await expect(page.getByRole("link", { name: "登录", exact: true })).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem("user"))).toBeNull();
  };

  test("查询 on /token after the session cookie is deleted", async ({ page, context }) => {
    await newUserSession(page, "ex");
    await context.clearCookies({ name: "qiao_session" });
    await page.getByLabel("令牌名称").fill("anything");
    await page.getByRole("button", { name: "查询" }).click();
    await loggedOutFrame(page);
    await shot(page, "login-expired");
  });

  test("a menu entry after the session cookie is deleted; the next visit is a fresh one", async ({ page, context }) => {
    await newUserSession(page, "ex");
    await context.clearCookies({ name: "qiao_session" });
    await sideMenu(page).getByRole("link", { name: "日志", exact: true }).click();
    await loggedOutFrame(page);
    // The notice is said once: a later visit to a console page is an ordinary logged-out one.
    await page.goto("/token");
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByTestId("expired-notice")).toHaveCount(0);
  });

  test("with every cookie gone, the stored user still learns that its session expired", async ({ page, context }) => {
    await newUserSession(page, "ex");
    await context.clearCookies();
    await sideMenu(page).getByRole("link", { name: "钱包" }).click();
    await loggedOutFrame(page);
  });

  test("the expired notice in light, dark and at 390 px", async ({ page }) => {
    await page.goto("/login?expired=true");
    await expect(page.getByTestId("expired-notice")).toBeVisible();
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    await shot(page, "login-expired-dark");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.getByTestId("expired-notice")).toBeVisible();
    await expectFits(page, 390);
    await shot(page, "login-expired-390");
  });
});
