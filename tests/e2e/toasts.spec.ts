// Toasts (issue 20.22): a new result replaces the stale one, so a failed sign-in's error is gone
// the moment 登录成功 shows.
import { expect, test, toast } from "./support";

test("after a failed then a successful login only the success toast is on screen", async ({ page }) => {
  await page.goto("/login");
  await page.getByLabel("用户名", { exact: true }).fill("root");
  await page.getByLabel("密码", { exact: true }).fill("wrong-password");
  await page.getByRole("button", { name: "登录", exact: true }).click();
  await expect(toast(page, "用户名或密码错误")).toBeVisible();

  await page.getByLabel("密码", { exact: true }).fill("123456");
  await page.getByRole("button", { name: "登录", exact: true }).click();
  await expect(toast(page, "登录成功！")).toBeVisible();
  // Checked at once, not polled: the error must not wait for its own timer to go.
  expect(await page.locator(".mantine-Notification-root").allInnerTexts()).toEqual(["登录成功！"]);
  await expect(page).toHaveURL(/\/token$/);
});
