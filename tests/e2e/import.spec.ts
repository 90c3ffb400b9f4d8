// 设置 → 迁移 in the real console: root fills in a new-api SQLite file (made here from the fixture
// schema, tests/fixtures/new-api/schema.ts), runs 试运行, and sees the dry run's report: counts per
// table, an unknown option listed, the sums. Only the dry run: an import would change the database
// every other spec uses. An admin is sent away from the tab. Screenshot in SCREENSHOT_DIR.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { ddl, tablesOf } from "../fixtures/new-api/schema";
import { ROOT_STATE } from "./env";
import { expect, shot, test } from "./support";

function newApiFile(): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "qiao-e2e-newapi-")), "one-api.db");
  const db = new Database(file);
  for (const table of tablesOf("new-api-latest")) for (const sql of ddl("sqlite", table)) db.exec(sql);
  const user = db.prepare(
    'INSERT INTO users (username, password, role, status, quota, used_quota, "group", aff_code) VALUES (?, ?, 1, 1, ?, 0, ?, ?)',
  );
  user.run("e2e_old_a", "x", 1_000_000, "default", "AFa1");
  user.run("e2e_old_b", "x", 2_500_000, "default", "AFb2");
  db.prepare(
    "INSERT INTO tokens (user_id, key, status, name, remain_quota, unlimited_quota, expired_time) VALUES (1, ?, 1, 'k', 400000, 0, -1)",
  ).run("e2eKey0123456789abcdefghijABCDEFGHIJ0123456789ab");
  db.prepare("INSERT INTO options (key, value) VALUES ('SomeNewApiOnlySwitch', 'true')").run();
  db.close();
  return file;
}

test.describe("设置 → 迁移", () => {
  test.use({ storageState: ROOT_STATE });

  test("root runs the dry run and reads its report; nothing is written", async ({ page }) => {
    const file = newApiFile();
    await page.goto("/setting?tab=import");
    await expect(page.getByRole("tab", { name: "迁移" })).toHaveAttribute("aria-selected", "true");
    await page.getByLabel("源数据库").fill(file);
    await page.getByRole("button", { name: "试运行" }).click();
    await expect(page.getByText("试运行：没有写入任何数据。")).toBeVisible();
    const users = page.getByRole("row", { name: /^users/ });
    await expect(users.getByRole("cell").nth(1)).toHaveText("2");
    await expect(users.getByRole("cell").nth(3)).toHaveText("2");
    await expect(page.getByText("Qiao 没有的设置项（未导入）：SomeNewApiOnlySwitch")).toBeVisible();
    await expect(page.getByText("源 3500000 − 跳过 0 = 3500000")).toBeVisible();
    await shot(page, "setting-import-dry-run");
    // Nothing was written: the old users are not in Qiao.
    const res = await page.request.get("/api/user/search?keyword=e2e_old_", { headers: { "New-Api-User": "1" } });
    expect((await res.json()).data.items).toHaveLength(0);
  });
});
