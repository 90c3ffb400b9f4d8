// Date-and-time fields read like the tables (issue 20.23): "2026-11-24 15:04:05", 24-hour, in
// a browser whose own locale would draw a native datetime-local input as "11/24/2026, 03:04 PM".
// Typed, picked (the browser's picker behind the calendar button) or refused with the format.
import { ROOT_STATE } from "./env";
import { expect, type Page, shot, test } from "./support";

test.use({ storageState: ROOT_STATE });

const field = (page: Page, label: string) => page.getByRole("textbox", { name: label, exact: true });

test("the log filter's times are 24-hour zh-CN text, typed or picked", async ({ page }) => {
  await page.goto("/log");
  const start = field(page, "起始时间");
  const end = field(page, "结束时间");
  // The default range starts today at midnight, written as the tables write times.
  await expect(start).toHaveValue(/^\d{4}-\d{2}-\d{2} 00:00:00$/);

  // An afternoon time stays 15:04, and the filter asks for that instant in the viewer's zone
  // (the browser runs in Asia/Shanghai, UTC+8).
  await start.fill("2026-11-24 15:04:05");
  await end.fill("2026-11-24 23:30:00");
  await expect(start).toHaveValue("2026-11-24 15:04:05");
  await page.getByRole("button", { name: "查询", exact: true }).click();
  const startSeconds = Date.UTC(2026, 10, 24, 7, 4, 5) / 1000;
  const endSeconds = Date.UTC(2026, 10, 24, 15, 30, 0) / 1000;
  await expect(page).toHaveURL(
    new RegExp(`start_timestamp=${startSeconds}.*end_timestamp=${endSeconds}|end_timestamp=${endSeconds}.*start_timestamp=${startSeconds}`),
  );
  await expect(start).toHaveValue("2026-11-24 15:04:05");

  // A 12-hour US time is refused with the format to use.
  await start.fill("11/24/2026, 03:04 PM");
  await expect(page.getByText("请按 YYYY-MM-DD HH:mm:ss 填写（24 小时制）")).toBeVisible();
  await shot(page, "date-field-error");

  // What the browser's picker chooses is written back in the same format.
  await page.locator('input[type="datetime-local"]').first().fill("2026-12-31T21:05:09");
  await expect(start).toHaveValue("2026-12-31 21:05:09");
  await expect(page.getByText("请按 YYYY-MM-DD HH:mm:ss 填写（24 小时制）")).toHaveCount(0);
  await shot(page, "date-field");

  await page.getByRole("button", { name: "切换明暗主题" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
  await shot(page, "date-field-dark");
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(start).toBeVisible();
  await shot(page, "date-field-narrow");
});

test("the data dashboard and the log cleanup fields use the same format", async ({ page }) => {
  await page.goto("/detail");
  await expect(field(page, "起始时间")).toHaveValue(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
  await page.goto("/setting?tab=operation");
  await expect(field(page, "日志清理时间")).toHaveValue(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?$/);
});
