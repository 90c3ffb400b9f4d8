// Logs kept in check (issue 27) through the real console: root saves the per-type retention days
// in 日志设置 (kept after a reload, refused when out of range), and the log page's 导出 CSV button
// downloads the filter the table shows, for an admin and for a user (only their own rows), with
// the rows in the table's order. Screenshots in light, dark and at 390 px.
import { readFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { Download } from "@playwright/test";
import { parseCsv } from "../helpers/csv";
import { ROOT_STATE } from "./env";
import { expect, expectFits, newUserSession, type Page, SCREENSHOT_DIR, shot, test, toast, uniqueName } from "./support";

test.setTimeout(180_000);

const card = (page: Page, name: string) => page.getByRole("region", { name });
const table = (page: Page) => page.getByRole("table", { name: "日志列表" });
const rows = (page: Page) => table(page).locator("tbody tr[data-row-id]");

/** Writes log rows straight into the server's SQLite file: `n` rows for the user, one second apart. */
function seedRows(userId: number, username: string, contents: string[], model: string) {
  const db = new Database(path.join(process.env.QIAO_E2E_DATA_DIR!, "qiao.db"));
  try {
    const insert = db.prepare(
      "INSERT INTO logs (user_id, username, created_at, type, content, model_name, token_name, quota, prompt_tokens, completion_tokens, use_time, is_stream, other) VALUES (?, ?, ?, 2, ?, ?, 'main', ?, 10, 5, 1, 0, '')",
    );
    const now = Math.floor(Date.now() / 1000);
    contents.forEach((content, i) => insert.run(userId, username, now - 600 + i, content, model, 100 + i));
  } finally {
    db.close();
  }
}

async function csvOf(download: Download): Promise<{ name: string; bom: boolean; rows: string[][] }> {
  const bytes = readFileSync(await download.path());
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return { name: download.suggestedFilename(), bom, rows: parseCsv(bytes.subarray(bom ? 3 : 0).toString("utf8")) };
}

async function exportCsv(page: Page) {
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "导出 CSV" }).click()]);
  return csvOf(download);
}

const CONTENTS = ['He said "hi", then left', "=1+2 looks like a formula", "充值, 逗号", "plain row"];

test.describe("retention settings", () => {
  test.use({ storageState: ROOT_STATE });

  test("root saves the days each log type is kept; they are kept after a reload", async ({ page }) => {
    await page.goto("/setting?tab=operation");
    const logs = card(page, "日志设置");
    const consume = logs.getByLabel("消费日志保留天数");
    const errors = logs.getByLabel("错误日志保留天数");
    try {
      // Nothing is deleted by default.
      for (const label of ["充值日志保留天数", "消费日志保留天数", "管理日志保留天数", "系统日志保留天数", "错误日志保留天数"]) {
        await expect(logs.getByLabel(label)).toHaveValue("0 天");
      }
      await consume.fill("40000");
      await logs.getByRole("button", { name: "保存日志设置" }).click();
      await expect(logs.getByText("请输入 0 到 36500 之间的整数")).toBeVisible();
      await consume.fill("30");
      await errors.fill("7");
      await logs.getByRole("button", { name: "保存日志设置" }).click();
      await expect(toast(page, "保存成功").first()).toBeVisible();
      await logs.screenshot({ path: `${SCREENSHOT_DIR}/log-retention-light.png` });

      await page.reload();
      await expect(consume).toHaveValue("30 天");
      await expect(errors).toHaveValue("7 天");
      await page.getByRole("button", { name: "切换明暗主题", exact: true }).click();
      await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
      // Centred, so the sticky header does not cover the card's title.
      await logs.evaluate((el) => el.scrollIntoView({ block: "center" }));
      await logs.screenshot({ path: `${SCREENSHOT_DIR}/log-retention-dark.png` });
      await page.getByRole("button", { name: "切换明暗主题", exact: true }).click();
      await page.setViewportSize({ width: 390, height: 844 });
      await page.reload();
      await expect(consume).toHaveValue("30 天");
      await expectFits(page, 390);
      await logs.screenshot({ path: `${SCREENSHOT_DIR}/log-retention-390.png` });
    } finally {
      // Put the defaults back: no other spec's rows may be deleted.
      for (const key of ["LogRetentionConsumeDays", "LogRetentionErrorDays"]) {
        const res = await page.request.put("/api/option/", { headers: { "New-Api-User": "1" }, data: { key, value: "0" } });
        expect((await res.json()).success).toBe(true);
      }
    }
  });
});

test.describe("CSV export", () => {
  test("an admin downloads the filtered all-users log, rows as the table shows them", async ({ browser }) => {
    const model = uniqueName("csv-");
    // Two users' rows under one model: the admin's filter by model finds both.
    const context = await browser.newContext({ storageState: ROOT_STATE });
    const page = await context.newPage();
    seedRows(1, "root", CONTENTS.slice(0, 2), model);
    seedRows(1, "root", CONTENTS.slice(2), `${model}-other`);
    await page.goto(`/log?model_name=${model}&start_timestamp=0`);
    await expect(rows(page)).toHaveCount(2);
    const csv = await exportCsv(page);
    expect(csv.bom).toBe(true);
    expect(csv.name).toMatch(/^logs-\d{8}-\d{6}\.csv$/);
    expect(csv.rows[0]).toEqual([
      "时间",
      "渠道",
      "用户",
      "令牌",
      "类型",
      "模型",
      "用时（秒）",
      "首字（秒）",
      "流式",
      "提示",
      "补全",
      "花费（额度）",
      "重试",
      "详情",
    ]);
    const body = csv.rows.slice(1);
    expect(body.map((r) => r[13])).toEqual(["'=1+2 looks like a formula", 'He said "hi", then left']);
    for (const [i, r] of body.entries()) {
      const row = rows(page).nth(i);
      await expect(row).toContainText(r[0]!);
      await expect(row).toContainText(r[2]!);
      await expect(row).toContainText(r[5]!);
      await expect(row).toContainText(r[13]!.replace(/^'/, ""));
    }
    await shot(page, "log-export-admin-light");
    await page.getByRole("button", { name: "切换明暗主题", exact: true }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    await shot(page, "log-export-admin-dark");
    await page.getByRole("button", { name: "切换明暗主题", exact: true }).click();
    await context.close();
  });

  test("a user downloads only their own rows", async ({ browser }) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const { username } = await newUserSession(page, "csv");
    const id: number = await page.evaluate(() => JSON.parse(localStorage.getItem("user") ?? "{}").id);
    const model = uniqueName("csvu-");
    seedRows(id, username, CONTENTS, model);
    seedRows(1, "root", ["root's row, not the user's"], model);
    await page.goto(`/log?model_name=${model}&start_timestamp=0`);
    await expect(rows(page)).toHaveCount(CONTENTS.length);
    const csv = await exportCsv(page);
    expect(csv.rows[0]).toEqual([
      "时间",
      "令牌",
      "类型",
      "模型",
      "用时（秒）",
      "首字（秒）",
      "流式",
      "提示",
      "补全",
      "花费（额度）",
      "详情",
    ]);
    const body = csv.rows.slice(1);
    expect(body.map((r) => r[10]!.replace(/^'/, ""))).toEqual([...CONTENTS].reverse());
    for (const [i, r] of body.entries()) {
      await expect(rows(page).nth(i)).toContainText(r[0]!);
      await expect(rows(page).nth(i)).toContainText(r[10]!.replace(/^'/, ""));
      expect(r[9]).toBe(String(100 + CONTENTS.length - 1 - i));
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await expect(page.getByRole("button", { name: "导出 CSV" })).toBeVisible();
    await expectFits(page, 390);
    await shot(page, "log-export-390");
    await context.close();
  });
});
