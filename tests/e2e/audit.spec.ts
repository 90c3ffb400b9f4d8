// The audit trail page (/audit) in the real console: root's changes show up with actor, target
// and from → to; the filters (actor, action, target, time) narrow the table and live in the URL;
// an admin has no menu entry, is sent away from the page and refused by GET /api/audit/.
// Screenshots in light, dark and at 390 px (SHOTS_DIR, outside the repository).
import { mkdirSync } from "node:fs";
import type { APIRequestContext } from "@playwright/test";
import { ROOT_STATE } from "./env";
import { expect, expectFits, loginViaUi, type Page, sideMenu, test, uniqueName } from "./support";

const SHOTS_DIR = process.env.QIAO_SHOTS_DIR ?? "test-results/screenshots";
const AS_ROOT = { "New-Api-User": "1" };
const PASSWORD = "password-123";

async function shoot(page: Page, name: string) {
  mkdirSync(SHOTS_DIR, { recursive: true });
  await page.screenshot({ path: `${SHOTS_DIR}/${name}.png`, fullPage: true });
}

async function ok(request: APIRequestContext, method: string, url: string, data?: unknown) {
  const res = await request.fetch(url, { method, data, headers: AS_ROOT });
  const body = await res.json();
  expect(body.success, `${method} ${url}: ${body.message}`).toBe(true);
  return body.data;
}

/** A user root creates and then gives a balance, and a channel root creates and disables: five audit rows. */
async function seedChanges(request: APIRequestContext) {
  const username = uniqueName("aud");
  const user = await ok(request, "POST", "/api/user/", { username, password: PASSWORD });
  await ok(request, "PUT", "/api/user/", { id: user.id, quota: 500000, original_quota: 0 });
  await ok(request, "PUT", "/api/user/", { id: user.id, group: "vip" });
  const name = uniqueName("audch");
  const [channel] = await ok(request, "POST", "/api/channel/", {
    name,
    type: 1,
    key: "sk-audit-e2e-key",
    models: "gpt-4o",
    group: "default",
  });
  await ok(request, "PUT", "/api/channel/", { id: channel.id, status: 2 });
  return { user: { id: user.id as number, username }, channel: { id: channel.id as number, name } };
}

const rows = (page: Page) => page.locator("tbody tr[data-row-id]");

test.describe("as root", () => {
  test.use({ storageState: ROOT_STATE });

  test("sees the changes, filters them by actor, action, target and time, with from → to", async ({ page }) => {
    const seeded = await seedChanges(page.request);
    await page.goto("/audit");
    await expect(page.getByRole("heading", { name: "审计日志" })).toBeVisible();
    await expect(sideMenu(page).getByRole("link", { name: "审计日志" })).toBeVisible();
    // Newest first: the channel's status change leads.
    await expect(rows(page).first()).toContainText("启用/禁用渠道");
    await expect(rows(page).first()).toContainText(new RegExp(`渠道 #${seeded.channel.id}(?!\\d)`));
    await expect(rows(page).first()).toContainText("已启用→已禁用");

    // By action: only quota changes, ours among them with its from → to.
    await page.getByRole("textbox", { name: "操作者" }).fill("root");
    await page.getByRole("combobox", { name: "操作", exact: true }).click();
    await page.getByRole("option", { name: "修改用户额度", exact: true }).click();
    await page.getByRole("button", { name: "查询" }).click();
    await expect(page).toHaveURL(/action=user\.quota/);
    await expect(page).toHaveURL(/actor=root/);
    const quotaRow = rows(page).filter({ hasText: new RegExp(`用户 #${seeded.user.id}(?!\\d)`) });
    await expect(quotaRow).toHaveCount(1);
    await expect(quotaRow).toContainText("额度：");
    await expect(quotaRow).toContainText("$1.00");
    for (const badge of await rows(page).getByText("修改用户额度").all()) await expect(badge).toBeVisible();
    expect(await rows(page).count()).toBe(await rows(page).filter({ hasText: "修改用户额度" }).count());
    await shoot(page, "audit-filtered-light");

    // By target: everything done to the new user, in order.
    await page.getByRole("button", { name: "重置" }).click();
    await expect(page).not.toHaveURL(/action=/);
    await page.getByRole("combobox", { name: "对象类型" }).click();
    await page.getByRole("option", { name: "用户", exact: true }).click();
    await page.getByRole("textbox", { name: "对象 ID" }).fill(String(seeded.user.id));
    await page.getByRole("button", { name: "查询" }).click();
    await expect(page).toHaveURL(new RegExp(`target=${seeded.user.id}`));
    await expect(page).toHaveURL(/target_type=user/);
    await expect(rows(page)).toHaveCount(3);
    await expect(rows(page).nth(0)).toContainText("编辑用户信息");
    await expect(rows(page).nth(0)).toContainText("分组：default→vip");
    await expect(rows(page).nth(1)).toContainText("修改用户额度");
    await expect(rows(page).nth(2)).toContainText("创建用户");
    await expect(rows(page).nth(2)).toContainText(seeded.user.username);

    // A time range that ends before today shows nothing.
    await page.getByRole("textbox", { name: "结束时间" }).fill("2020-01-01 00:00:00");
    await page.getByRole("button", { name: "查询" }).click();
    await expect(page).toHaveURL(/end_timestamp=/);
    await expect(page.getByText("没有符合条件的审计记录")).toBeVisible();

    // The channel key never shows: only its length.
    await page.goto(`/audit?target_type=channel&target=${seeded.channel.id}&action=channel.create`);
    await expect(rows(page)).toHaveCount(1);
    await expect(rows(page).first()).toContainText("密钥：****（16 个字符）");
    await expect(page.getByText("sk-audit-e2e-key")).toHaveCount(0);
  });

  test("looks right in light, dark and at 390 px", async ({ page }) => {
    await seedChanges(page.request);
    await page.goto("/audit");
    await expect(rows(page).first()).toBeVisible();
    await shoot(page, "audit-light");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    await shoot(page, "audit-dark");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/audit");
    await expect(page.getByRole("list", { name: "审计日志列表" })).toBeVisible();
    await expectFits(page, 390);
    await shoot(page, "audit-narrow-dark");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "light");
    await shoot(page, "audit-narrow");
  });
});

test("an admin has no audit page: no menu entry, sent away, refused by the API", async ({ page, browser }) => {
  const root = await browser.newContext({ storageState: ROOT_STATE });
  const username = uniqueName("audadm");
  let adminId: number;
  try {
    adminId = (await ok(root.request, "POST", "/api/user/", { username, password: PASSWORD })).id;
    await ok(root.request, "POST", "/api/user/manage", { id: adminId, action: "promote" });
  } finally {
    await root.close();
  }
  await loginViaUi(page, username, PASSWORD);
  await expect(sideMenu(page).getByRole("link", { name: "用户管理" })).toBeVisible();
  await expect(sideMenu(page).getByRole("link", { name: "审计日志" })).toHaveCount(0);
  await page.goto("/audit");
  await expect(page).not.toHaveURL(/\/audit/);
  await expect(page.getByRole("heading", { name: "审计日志" })).toHaveCount(0);
  const res = await page.request.get("/api/audit/", { headers: { "New-Api-User": String(adminId) } });
  expect(res.status()).toBe(403);
  expect((await res.json()).success).toBe(false);
});
