// Home and about pages before the admin writes their content; the footer.
import { expect, test, shot } from "./support";

test("the welcome page shows the system name, the API address and the footer version", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("欢迎使用");
  await expect(page.getByTestId("api-base")).toContainText("/v1");
  const footer = page.getByTestId("site-footer");
  await expect(footer).toContainText(/v\d+\.\d+\.\d+/);
  await expect(footer.getByRole("link")).toHaveAttribute("href", "https://github.com/qiao-gateway/qiao");
  await expect(page.getByRole("link", { name: "登录", exact: true })).toBeVisible();
  await expect(page.getByRole("link", { name: "注册", exact: true })).toBeVisible();
  await shot(page, "home");
});

test("the about page shows the default text", async ({ page }) => {
  await page.goto("/about");
  await expect(page.getByText("可在设置页面设置关于内容，支持 HTML & Markdown")).toBeVisible();
  await shot(page, "about");
});
