// Helpers for the console specs.
import { expect, type Page } from "@playwright/test";
import { SignJWT } from "jose";
import { E2E_SESSION_SECRET } from "./env";

export const SCREENSHOT_DIR = "test-results/screenshots";

export async function shot(page: Page, name: string) {
  await page.screenshot({ path: `${SCREENSHOT_DIR}/${name}.png`, fullPage: true });
}

/** Logs in through the form and waits for the token page. */
export async function loginViaUi(page: Page, username: string, password: string) {
  await page.goto("/login");
  await page.getByLabel("用户名", { exact: true }).fill(username);
  await page.getByLabel("密码", { exact: true }).fill(password);
  await page.getByRole("button", { name: "登录", exact: true }).click();
  await expect(page).toHaveURL(/\/token$/);
  await expect(page.getByRole("heading", { name: "令牌管理" })).toBeVisible();
}

export const sideMenu = (page: Page) => page.getByRole("navigation", { name: "侧边菜单" });

export const DEFAULT_PASSWORD_NOTICE = "您正在使用默认密码！请立刻修改默认密码！";

/** A correctly signed session cookie for a user that does not exist: pages load, the API says 401. */
export async function forgedSessionCookie(): Promise<string> {
  return new SignJWT({ username: "ghost", role: 1, ver: 0 })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject("987654")
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + 3600)
    .sign(new TextEncoder().encode(E2E_SESSION_SECRET));
}

export const uniqueName = (prefix: string) => `${prefix}${Date.now().toString(36).slice(-6)}${Math.floor(Math.random() * 100)}`;
