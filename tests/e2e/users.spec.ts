// User management (spec §2 manage users, §4 User actions, §5 Users, §6) through the real console:
// as root (add, search, group filter, edit with added and deducted quota, every row action) and as
// an admin (users of its own role or above are out of reach: buttons disabled, server refuses);
// screenshots in light, dark and at 390 px.
import type { APIRequestContext, Browser } from "@playwright/test";
import { ROOT_STATE } from "./env";
import { expect, expectFits, loginViaUi, newUserSession, type Page, shot, test, toast, uniqueName } from "./support";

const AS_ROOT = { "New-Api-User": "1" };
const PASSWORD = "password-123";

const row = (page: Page, username: string) => page.getByRole("row").filter({ has: page.getByText(username, { exact: true }) });

async function search(page: Page, keyword: string) {
  await page.getByLabel("搜索用户").fill(keyword);
  await page.getByRole("button", { name: "查询" }).click();
  await expect(page).toHaveURL(new RegExp(`keyword=${encodeURIComponent(keyword.trim())}`));
}

/** Root's API (its stored session), for setting up users the UI test then acts on. */
async function rootApi(browser: Browser): Promise<{ request: APIRequestContext; close: () => Promise<void> }> {
  const context = await browser.newContext({ storageState: ROOT_STATE });
  return { request: context.request, close: () => context.close() };
}

async function makeUser(request: APIRequestContext, prefix: string, admin = false): Promise<{ id: number; username: string }> {
  const username = uniqueName(prefix);
  const made = await (await request.post("/api/user/", { data: { username, password: PASSWORD }, headers: AS_ROOT })).json();
  expect(made.success).toBe(true);
  if (admin) {
    const promoted = await (
      await request.post("/api/user/manage", { data: { id: made.data.id, action: "promote" }, headers: AS_ROOT })
    ).json();
    expect(promoted.data).toEqual({ role: 10, status: 1 });
  }
  return { id: made.data.id, username };
}

test.describe("as root", () => {
  test.use({ storageState: ROOT_STATE });

  test("adds, searches, filters by group, edits quota and group, and runs every row action", async ({ page }) => {
    // Other specs add users to the shared server, so root (id 1) may be past the first page.
    await page.goto("/user?keyword=root");
    await expect(page.getByRole("heading", { name: "用户管理" })).toBeVisible();
    await expect(row(page, "root").getByText("超级管理员")).toBeVisible();
    await page.goto("/user");

    // Add: username and password are required; the drawer lives at /user/edit.
    await page.getByRole("button", { name: "添加用户" }).click();
    await expect(page).toHaveURL(/\/user\/edit$/);
    await expect(page.getByRole("heading", { name: "添加用户" })).toBeVisible();
    await page.getByRole("button", { name: "提交" }).click();
    // Under the fields (the first one is also toasted).
    await expect(page.getByRole("dialog").getByText("请输入用户名")).toBeVisible();
    await expect(page.getByRole("dialog").getByText("请输入密码")).toBeVisible();
    const username = uniqueName("adm");
    await page.getByRole("textbox", { name: "用户名", exact: true }).fill(username);
    await page.getByRole("textbox", { name: "显示名称", exact: true }).fill("测试显示名");
    await page.getByRole("textbox", { name: "密码", exact: true }).fill("short");
    await page.getByRole("button", { name: "提交" }).click();
    await expect(page.getByRole("dialog").getByText("密码长度不得小于 8 位！")).toBeVisible();
    await page.getByRole("textbox", { name: "密码", exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "提交" }).click();
    await expect(toast(page, "用户账户创建成功！")).toBeVisible();
    await expect(page).toHaveURL(/\/user$/);
    await expect(row(page, username)).toHaveCount(1);
    await expect(row(page, username).getByText("测试显示名")).toBeVisible();
    await expect(row(page, username).getByText("普通用户")).toBeVisible();
    await expect(row(page, username).getByText("已激活")).toBeVisible();
    // A taken name is refused by the server, shown as a toast; the drawer opens empty again.
    await page.getByRole("button", { name: "添加用户" }).click();
    await expect(page).toHaveURL(/\/user\/edit$/);
    await expect(page.getByRole("textbox", { name: "用户名", exact: true })).toHaveValue("");
    await page.getByRole("textbox", { name: "用户名", exact: true }).fill(username);
    await page.getByRole("textbox", { name: "密码", exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "提交" }).click();
    await expect(toast(page, "用户名已存在，或已注销")).toBeVisible();
    await page.getByRole("button", { name: "取消" }).click();
    await expect(page).toHaveURL(/\/user$/);

    // Search by keyword (trimmed), in the URL.
    await search(page, `  ${username} `);
    await expect(page.getByText("共 1 条")).toBeVisible();
    await expect(row(page, username)).toHaveCount(1);
    await shot(page, "user-list-light");

    // Edit: the drawer at /user/edit/{id}; group, then add quota (+) and deduct (−).
    await row(page, username).getByRole("button", { name: "编辑" }).click();
    await expect(page).toHaveURL(/\/user\/edit\/\d+\?keyword=/);
    await expect(page.getByRole("heading", { name: "编辑用户" })).toBeVisible();
    await expect(page.getByRole("textbox", { name: "用户名", exact: true })).toHaveValue(username);
    await expect(page.getByRole("textbox", { name: "密码", exact: true })).toHaveAttribute("placeholder", "请输入新的密码，最短 8 位");
    await expect(page.getByLabel("已绑定的 GitHub 账户")).toHaveAttribute("readonly", "");
    await expect(page.getByLabel("已绑定的邮箱账户")).toHaveAttribute("readonly", "");
    await page.getByRole("dialog").getByRole("combobox", { name: "分组" }).click();
    await page.getByRole("option", { name: "vip", exact: true }).click();
    await page.getByRole("textbox", { name: "添加额度", exact: true }).fill("1000000");
    await expect(page.getByText("新额度：$0.00 + $2.00 = $2.00")).toBeVisible();
    await shot(page, "user-edit-light");
    await page.getByRole("button", { name: "提交" }).click();
    await expect(toast(page, "用户信息更新成功！").first()).toBeVisible();
    await expect(page).toHaveURL(/\/user\?keyword=/);
    await expect(row(page, username).getByText("剩余 $2.00")).toBeVisible();
    await expect(row(page, username).getByText("vip", { exact: true })).toBeVisible();

    await row(page, username).getByRole("button", { name: "编辑" }).click();
    await expect(page.getByRole("textbox", { name: "用户名", exact: true })).toHaveValue(username);
    await expect(page.getByRole("textbox", { name: "剩余额度" })).toHaveValue("1,000,000");
    await page.getByRole("textbox", { name: "添加额度", exact: true }).fill("-1250000");
    await expect(page.getByText("新额度：$2.00 + -$2.50 = -$0.50")).toBeVisible();
    await page.getByRole("button", { name: "提交" }).click();
    await expect(toast(page, "用户信息更新成功！").first()).toBeVisible();
    await expect(row(page, username).getByText("剩余 -$0.50")).toBeVisible();

    // Each quota change wrote an admin log row (type 3).
    const logs = await (await page.request.get(`/api/log/?type=3&username=${username}`, { headers: AS_ROOT })).json();
    expect((logs.data.items as Array<{ content: string }>).map((l) => l.content).sort()).toEqual(
      ["管理员将用户额度从 ＄0.000000 额度修改为 ＄2.000000 额度", "管理员将用户额度从 ＄2.000000 额度修改为 ＄-0.500000 额度"].sort(),
    );

    // Group filter: only vip users, in the URL.
    await page.getByLabel("搜索用户").fill("");
    await page.getByRole("main").getByRole("combobox", { name: "分组" }).click();
    await page.getByRole("option", { name: "vip", exact: true }).click();
    await page.getByRole("button", { name: "查询" }).click();
    await expect(page).toHaveURL(/\/user\?group=vip$/);
    await expect(row(page, username)).toHaveCount(1);
    await expect(row(page, "root")).toHaveCount(0);
    await expect(page.locator("tbody tr").filter({ hasNotText: "vip" })).toHaveCount(0);

    // Promote and demote ask first; the row takes the role the server answered.
    await row(page, username).getByRole("button", { name: "提升" }).click();
    await expect(page.getByText("确定要提升此用户吗？")).toBeVisible();
    await page.getByRole("dialog").getByRole("button", { name: "提升" }).click();
    await expect(toast(page, "操作成功完成！").first()).toBeVisible();
    await expect(row(page, username).getByText("管理员", { exact: true })).toBeVisible();
    await expect(row(page, username).getByRole("button", { name: "提升" })).toBeDisabled();
    await row(page, username).getByRole("button", { name: "降级" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "降级" }).click();
    await expect(row(page, username).getByText("普通用户")).toBeVisible();
    await expect(row(page, username).getByRole("button", { name: "降级" })).toBeDisabled();

    // Disable, then enable.
    await row(page, username).getByRole("button", { name: "禁用" }).click();
    await expect(row(page, username).getByText("已封禁")).toBeVisible();
    await row(page, username).getByRole("button", { name: "启用" }).click();
    await expect(row(page, username).getByText("已激活")).toBeVisible();

    // Delete (deactivate): cancel keeps the user; confirm leaves 已注销 with no actions.
    await row(page, username).getByRole("button", { name: "注销" }).click();
    await expect(page.getByText("相当于删除用户，此修改将不可逆")).toBeVisible();
    await page.getByRole("dialog").getByRole("button", { name: "取消" }).click();
    await expect(row(page, username).getByText("已激活")).toBeVisible();
    await row(page, username).getByRole("button", { name: "注销" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "注销" }).click();
    await expect(toast(page, "操作成功完成！").first()).toBeVisible();
    await expect(row(page, username).getByText("已注销")).toBeVisible();
    await expect(row(page, username).getByRole("button")).toHaveCount(0);
  });

  test("root cannot be demoted, disabled or deleted, only edited by itself", async ({ page }) => {
    await page.goto("/user?keyword=root");
    for (const name of ["提升", "降级", "禁用", "注销"]) await expect(row(page, "root").getByRole("button", { name })).toBeDisabled();
    // Root may edit itself.
    await expect(row(page, "root").getByRole("button", { name: "编辑" })).toBeEnabled();
    const refused = await (await page.request.post("/api/user/manage", { data: { id: 1, action: "disable" }, headers: AS_ROOT })).json();
    expect(refused).toMatchObject({ success: false, message: "无法禁用超级管理员用户" });
  });

  test("/user/edit/{id} and /user/edit answer directly with the drawer open", async ({ page }) => {
    const res = await page.goto("/user/edit/1");
    expect(res?.status()).toBe(200);
    await expect(page.getByRole("heading", { name: "编辑用户" })).toBeVisible();
    await expect(page.getByRole("textbox", { name: "用户名", exact: true })).toHaveValue("root");
    await page.getByRole("button", { name: "取消" }).click();
    await expect(page).toHaveURL(/\/user$/);
    await expect(page.getByRole("heading", { name: "用户管理" })).toBeVisible();

    const add = await page.goto("/user/edit");
    expect(add?.status()).toBe(200);
    await expect(page.getByRole("heading", { name: "添加用户" })).toBeVisible();
    // Back closes the drawer again.
    await page.getByRole("button", { name: "取消" }).click();
    await page.goBack();
    await expect(page.getByRole("heading", { name: "添加用户" })).toBeVisible();

    expect((await page.goto("/user/edit/abc"))?.status()).toBe(404);
    // An unknown user: the error toast, and the list.
    await page.goto("/user/edit/99999");
    await expect(toast(page, "用户不存在")).toBeVisible();
    await expect(page).toHaveURL(/\/user$/);
  });
});

test("an admin acts only on users below its role; the server refuses the rest", async ({ page, browser }) => {
  const root = await rootApi(browser);
  const me = await makeUser(root.request, "me", true);
  const peer = await makeUser(root.request, "peer", true);
  const plain = await makeUser(root.request, "pln");
  await root.close();

  await loginViaUi(page, me.username, PASSWORD);
  await page.goto("/user");
  await expect(page.getByRole("heading", { name: "用户管理" })).toBeVisible();

  for (const name of [peer.username, me.username, "root"]) {
    await search(page, name);
    for (const label of ["提升", "降级", "禁用", "注销", "编辑"]) {
      await expect(row(page, name).getByRole("button", { name: label }), `${label} ${name}`).toBeDisabled();
    }
  }

  // The server is the authority: the same calls made directly are refused.
  const as = { "New-Api-User": String(me.id) };
  for (const [id, action, message] of [
    [peer.id, "disable", "无权更新同权限等级或更高权限等级的用户信息"],
    [peer.id, "demote", "无权更新同权限等级或更高权限等级的用户信息"],
    [1, "delete", "无法删除超级管理员用户"],
    [plain.id, "promote", "普通管理员用户无法提升其他用户为管理员"],
  ] as const) {
    const res = await page.request.post("/api/user/manage", { data: { id, action }, headers: as });
    expect(res.status(), `${action} ${id}`).toBe(403);
    expect((await res.json()).message).toBe(message);
  }
  const edit = await page.request.put("/api/user/", { data: { id: peer.id, quota: 1 }, headers: as });
  expect(edit.status()).toBe(403);

  // An ordinary user is within reach: disable works, promote stays root's.
  await search(page, plain.username);
  await expect(row(page, plain.username).getByRole("button", { name: "提升" })).toBeDisabled();
  await row(page, plain.username).getByRole("button", { name: "禁用" }).click();
  await expect(toast(page, "操作成功完成！").first()).toBeVisible();
  await expect(row(page, plain.username).getByText("已封禁")).toBeVisible();
  await row(page, plain.username).getByRole("button", { name: "编辑" }).click();
  await expect(page.getByRole("textbox", { name: "用户名", exact: true })).toHaveValue(plain.username);
  await page.getByRole("textbox", { name: "添加额度", exact: true }).fill("500000");
  await page.getByRole("button", { name: "提交" }).click();
  await expect(toast(page, "用户信息更新成功！").first()).toBeVisible();
  await expect(row(page, plain.username).getByText("剩余 $1.00")).toBeVisible();
  await shot(page, "user-list-admin");
});

test.describe("looks", () => {
  test.use({ storageState: ROOT_STATE });

  test("dark mode and a 390 px phone", async ({ page }) => {
    await page.goto("/user?keyword=root");
    await expect(page.getByRole("heading", { name: "用户管理" })).toBeVisible();
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    await shot(page, "user-list-dark");
    await row(page, "root").getByRole("button", { name: "编辑" }).click();
    await expect(page.getByRole("textbox", { name: "用户名", exact: true })).toHaveValue("root");
    await shot(page, "user-edit-dark");
    await page.getByRole("button", { name: "取消" }).click();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/user");
    await expect(page.getByRole("button", { name: "添加用户" })).toBeVisible();
    await expectFits(page, 390);
    await shot(page, "user-list-narrow");
    await page.getByRole("button", { name: "添加用户" }).click();
    await expect(page.getByRole("heading", { name: "添加用户" })).toBeVisible();
    await shot(page, "user-add-narrow");
    await page.goto("/user/edit/1");
    await expect(page.getByRole("textbox", { name: "用户名", exact: true })).toHaveValue("root");
    await shot(page, "user-edit-narrow");
  });
});

test("an ordinary user never reaches the user pages", async ({ page }) => {
  await newUserSession(page, "nouser");
  for (const path of ["/user", "/user/edit", "/user/edit/1"]) {
    await page.goto(path);
    await expect(page, path).toHaveURL(/\/$/);
  }
});

test.describe("paging", () => {
  test.use({ storageState: ROOT_STATE });

  test("a search pages through the URL and keeps its keyword", async ({ page, browser }) => {
    const root = await rootApi(browser);
    const prefix = uniqueName("pg");
    for (let i = 0; i < 11; i++) {
      const res = await root.request.post("/api/user/", { data: { username: `${prefix}${i}`, password: PASSWORD }, headers: AS_ROOT });
      expect((await res.json()).success).toBe(true);
    }
    await root.close();
    await page.goto("/user");
    await search(page, prefix);
    await expect(page.getByText("共 11 条")).toBeVisible();
    await expect(page.locator("tbody tr")).toHaveCount(10);
    await page.getByRole("button", { name: "下一页" }).click();
    await expect(page).toHaveURL(new RegExp(`keyword=${prefix}.*p=1|p=1.*keyword=${prefix}`));
    await expect(page.locator("tbody tr")).toHaveCount(1);
    // Newest first: the first user made is alone on the second page.
    await expect(row(page, `${prefix}0`)).toHaveCount(1);
  });
});
