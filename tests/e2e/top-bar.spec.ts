// The top bar's 注册 link follows the RegisterEnabled option (via the server's render of
// /api/status's option): hidden while registration is off, back when it is on. Screenshots in
// light, dark and at 390 px.
import type { APIRequestContext } from "@playwright/test";
import { ROOT_STATE } from "./env";
import { expect, expectFits, type Page, shot, test } from "./support";

test.describe.configure({ mode: "serial" });

async function setRegister(request: APIRequestContext, on: boolean) {
  const res = await request.put("/api/option/", { data: { key: "RegisterEnabled", value: String(on) }, headers: { "New-Api-User": "1" } });
  expect((await res.json()).success).toBe(true);
}

const topBar = (page: Page) => page.getByRole("banner");

test("注册 is hidden in the top bar while registration is off", async ({ browser, page }) => {
  const root = await browser.newContext({ storageState: ROOT_STATE });
  try {
    await page.goto("/login");
    await expect(topBar(page).getByRole("link", { name: "注册", exact: true })).toBeVisible();
    await setRegister(root.request, false);
    const status = await (await page.request.get("/api/status")).json();
    expect(status.data.register_enabled).toBe(false);

    for (const path of ["/login", "/", "/about"]) {
      await page.goto(path);
      await expect(topBar(page).getByRole("link", { name: "登录", exact: true })).toBeVisible();
      await expect(topBar(page).getByRole("link", { name: "注册", exact: true })).toHaveCount(0);
      // The login form's own 没有账户？点击注册 goes with it.
      if (path === "/login") await expect(page.getByRole("link", { name: "点击注册", exact: true })).toHaveCount(0);
    }
    await shot(page, "top-bar-register-off");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    await shot(page, "top-bar-register-off-dark");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/login");
    await expect(topBar(page).getByRole("link", { name: "登录", exact: true })).toBeVisible();
    await expect(topBar(page).getByRole("link", { name: "注册", exact: true })).toHaveCount(0);
    await expectFits(page, 390);
    await shot(page, "top-bar-register-off-narrow");

    await setRegister(root.request, true);
    await page.reload();
    await expect(topBar(page).getByRole("link", { name: "注册", exact: true })).toBeVisible();
    await expect(page.getByRole("link", { name: "点击注册", exact: true })).toBeVisible();
  } finally {
    await setRegister(root.request, true);
    await root.close();
  }
});
