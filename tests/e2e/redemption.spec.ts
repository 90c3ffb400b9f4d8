// The redemption page (spec §2 Redemption page, §4 Redemption status, §5 Redemption form, §7
// Redemptions, §8) driven through the real console as root; one code is redeemed by a fresh
// ordinary user through POST /api/user/topup. Screenshots in light, dark and at 390 px.
import { readFile } from "node:fs/promises";
import { E2E_BASE_URL, ROOT_STATE } from "./env";
import { clipboardText, closeDialog, expect, expectFits, newUserSession, type Page, shot, test, toast } from "./support";

test.use({ storageState: ROOT_STATE, permissions: ["clipboard-read", "clipboard-write"] });

const CODE = /^[0-9a-f]{32}$/;

/** Names of letters only, so searching an id never also matches a name. */
const letterName = (prefix: string) =>
  `${prefix}${Date.now()
    .toString(36)
    .replace(/\d/g, (d) => "abcdefghij"[Number(d)] as string)}${"xyzw"[Math.floor(Math.random() * 4)]}`;

const rowOf = (page: Page, id: number) => page.locator(`tbody tr[data-row-id="${id}"]`);

const shownIds = async (page: Page) =>
  await page.locator("tbody tr[data-row-id]").evaluateAll((rows) => rows.map((r) => Number(r.getAttribute("data-row-id"))));

async function search(page: Page, keyword: string) {
  await page.getByLabel("兑换码 ID 或名称").fill(keyword);
  await page.getByRole("button", { name: "查询" }).click();
}

/** Creates codes through the drawer; answers the downloaded file's name and codes. */
async function createCodes(page: Page, name: string, count: number, quota?: number) {
  await page.getByRole("button", { name: "添加兑换码" }).click();
  await expect(page.getByRole("heading", { name: "创建新的兑换码" })).toBeVisible();
  await page.getByRole("textbox", { name: "名称", exact: true }).fill(name);
  if (quota !== undefined) await page.getByLabel(/^额度/).fill(String(quota));
  if (count !== 1) await page.getByLabel("生成数量").fill(String(count));
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "提交" }).click();
  await expect(toast(page, "兑换码创建成功！")).toBeVisible();
  const file = await download;
  const text = await readFile((await file.path()) as string, "utf8");
  return { fileName: file.suggestedFilename(), codes: text.split("\n").filter(Boolean), text };
}

test("root creates, searches, views, copies, disables, edits and deletes codes; a used code is locked", async ({ page, browser }) => {
  await page.goto("/redemption");
  await expect(page.getByRole("heading", { name: "兑换码管理" })).toBeVisible();

  // Copy selected with nothing selected.
  await page.getByRole("button", { name: "复制所选兑换码" }).click();
  await expect(toast(page, "请至少选择一个兑换码！")).toBeVisible();

  // The drawer starts from the spec's defaults; an empty name sends nothing, silently.
  const posts: string[] = [];
  page.on("request", (r) => {
    if (r.method() === "POST" && r.url().includes("/api/redemption")) posts.push(r.url());
  });
  await page.getByRole("button", { name: "添加兑换码" }).click();
  await expect(page.getByLabel(/^额度/)).toHaveValue("100000");
  await expect(page.getByText("额度（等价金额：$0.20）")).toBeVisible();
  await expect(page.getByLabel("生成数量")).toHaveValue("1");
  await page.getByRole("textbox", { name: "名称", exact: true }).fill("   ");
  await page.getByRole("button", { name: "提交" }).click();
  await page.waitForTimeout(300);
  expect(posts).toEqual([]);
  await expect(page.getByRole("heading", { name: "创建新的兑换码" })).toBeVisible();
  await page.getByRole("button", { name: "取消" }).click();

  // Three codes: downloaded as `${name}.txt`, one 32-hex code per line, and shown in a dialog.
  const name = letterName("gift");
  const created = await createCodes(page, name, 3);
  expect(posts).toHaveLength(1);
  expect(created.fileName).toBe(`${name}.txt`);
  expect(created.codes).toHaveLength(3);
  expect(created.text).toBe(created.codes.map((c) => `${c}\n`).join(""));
  for (const code of created.codes) expect(code).toMatch(CODE);
  const dialog = page.getByRole("dialog", { name: `兑换码「${name}」` });
  await expect(dialog.getByLabel("新建的兑换码")).toHaveText(created.codes.join("\n"));
  await dialog.getByRole("button", { name: "复制全部" }).click();
  await expect(toast(page, "已复制到剪贴板！").first()).toBeVisible();
  expect(await clipboardText(page)).toBe(created.codes.join("\n"));
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);

  // Search by name (trimmed): the filter lives in the URL.
  await search(page, `  ${name} `);
  await expect(page).toHaveURL(new RegExp(`keyword=${name}$`));
  await expect(page.getByText("共 3 条")).toBeVisible();
  const ids = await shownIds(page);
  expect(ids).toHaveLength(3);
  const [a, b, c] = ids as [number, number, number];
  for (const id of ids) {
    await expect(rowOf(page, id).getByText("未使用")).toBeVisible();
    await expect(rowOf(page, id).getByText("$0.20")).toBeVisible();
    await expect(rowOf(page, id).getByText("尚未兑换")).toBeVisible();
    // Lists carry the masked code only.
    await expect(rowOf(page, id)).not.toContainText(created.codes[0] as string);
  }
  await shot(page, "redemption-list-light");

  // View shows the whole code; copy puts it on the clipboard.
  await rowOf(page, a).getByRole("button", { name: "查看" }).click();
  const codeA = ((await page.getByRole("dialog").locator(".mantine-Code-root").textContent()) ?? "").trim();
  expect(created.codes).toContain(codeA);
  await closeDialog(page);
  await rowOf(page, a).getByRole("button", { name: "复制" }).click();
  await expect(toast(page, "已复制到剪贴板！").first()).toBeVisible();
  // The batch copy's toast above may still be showing: wait for the clipboard itself.
  await expect.poll(() => clipboardText(page)).toBe(codeA);

  // Search by id, then by the whole code.
  // An id also matches names holding its digits (other specs' codes, such as `dt-<timestamp>`);
  // a and c, named in letters, are never among them.
  await search(page, String(b));
  await expect.poll(() => shownIds(page)).not.toContain(a);
  expect(await shownIds(page)).toContain(b);
  expect(await shownIds(page)).not.toContain(c);
  // The search by b may have shown one row too ("共 1 条"): wait for the rows themselves.
  await search(page, codeA);
  await expect.poll(() => shownIds(page)).toEqual([a]);
  await expect(page.getByText("共 1 条")).toBeVisible();
  await search(page, name);
  await expect(page.getByText("共 3 条")).toBeVisible();

  // Copy selected: one `name code` line per selected code.
  await page.getByRole("checkbox", { name: `选择 ${a}` }).check();
  await page.getByRole("checkbox", { name: `选择 ${c}` }).check();
  await page.getByRole("button", { name: "复制所选兑换码" }).click();
  await expect.poll(async () => (await clipboardText(page)).split("\n").length).toBe(2);
  const lines = (await clipboardText(page)).split("\n");
  expect(lines).toContain(`${name} ${codeA}`);
  for (const line of lines) {
    const [lineName, code] = line.split(" ");
    expect(lineName).toBe(name);
    expect(created.codes).toContain(code);
  }

  // Disable, then enable again: the label follows the status.
  await rowOf(page, a).getByRole("button", { name: "禁用" }).click();
  await expect(toast(page, "操作成功完成！")).toBeVisible();
  await expect(rowOf(page, a).getByText("已禁用")).toBeVisible();
  // Edit only while unused: not for a disabled code.
  await expect(rowOf(page, a).getByRole("button", { name: "编辑" })).toBeDisabled();
  await rowOf(page, a).getByRole("button", { name: "启用" }).click();
  await expect(rowOf(page, a).getByText("未使用")).toBeVisible();

  // Edit while unused: name and quota; the row shows them.
  await rowOf(page, a).getByRole("button", { name: "编辑" }).click();
  await expect(page.getByRole("heading", { name: "更新兑换码信息" })).toBeVisible();
  await expect(page.getByRole("textbox", { name: "名称", exact: true })).toHaveValue(name);
  await expect(page.getByLabel(/^额度/)).toHaveValue("100000");
  await expect(page.getByLabel("生成数量")).toHaveCount(0);
  await page.getByRole("textbox", { name: "名称", exact: true }).fill(`${name}x`);
  await page.getByLabel(/^额度/).fill("500000");
  await expect(page.getByText("额度（等价金额：$1.00）")).toBeVisible();
  await page.getByRole("button", { name: "提交" }).click();
  await expect(toast(page, "兑换码更新成功！")).toBeVisible();
  await expect(rowOf(page, a).getByText(`${name}x`)).toBeVisible();
  await expect(rowOf(page, a).getByText("$1.00")).toBeVisible();

  // A fresh ordinary user redeems code b through the API.
  await rowOf(page, b).getByRole("button", { name: "查看" }).click();
  const codeB = ((await page.getByRole("dialog").locator(".mantine-Code-root").textContent()) ?? "").trim();
  await closeDialog(page);
  const context = await browser.newContext({ baseURL: E2E_BASE_URL, storageState: { cookies: [], origins: [] } });
  try {
    const user = await context.newPage();
    await newUserSession(user, "rdm");
    const userId = await user.evaluate(() => JSON.parse(localStorage.getItem("user") ?? "{}").id as number);
    const res = await user.request.post("/api/user/topup", { data: { key: codeB }, headers: { "New-Api-User": String(userId) } });
    expect(await res.json()).toMatchObject({ success: true, data: 100000 });

    await page.reload();
    await expect(rowOf(page, b).getByText("已使用")).toBeVisible();
    // The 8th cell (after the checkbox): who redeemed it.
    await expect(rowOf(page, b).locator("td").nth(7)).toHaveText(String(userId));
    await expect(rowOf(page, b).getByText("尚未兑换")).toHaveCount(0);
    // Spec §4: enable is unavailable and edit is not allowed for a used code.
    await expect(rowOf(page, b).getByRole("button", { name: "启用" })).toBeDisabled();
    await expect(rowOf(page, b).getByRole("button", { name: "编辑" })).toBeDisabled();
    await shot(page, "redemption-list-used");

    // An ordinary user is turned away from /redemption by the page guard, and by the API.
    await user.goto("/redemption");
    await expect(user).toHaveURL(`${E2E_BASE_URL}/`);
    await expect(user.getByRole("heading", { name: "兑换码管理" })).toHaveCount(0);
    const list = await user.request.get("/api/redemption/", { headers: { "New-Api-User": String(userId) } });
    expect((await list.json()).success).toBe(false);
  } finally {
    await context.close();
  }

  // Delete asks first; cancel keeps the row, confirm removes it.
  await rowOf(page, c).getByRole("button", { name: "删除" }).click();
  await expect(page.getByText("确定是否要删除此兑换码？")).toBeVisible();
  await expect(page.getByText("此修改将不可逆")).toBeVisible();
  await page.getByRole("button", { name: "取消" }).click();
  await expect(rowOf(page, c)).toHaveCount(1);
  await rowOf(page, c).getByRole("button", { name: "删除" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "删除" }).click();
  await expect(toast(page, "删除成功！")).toBeVisible();
  await expect(rowOf(page, c)).toHaveCount(0);
  await expect(page.getByText("共 2 条")).toBeVisible();
});

test("a quota and count typed in are sent as integers", async ({ page }) => {
  await page.goto("/redemption");
  const name = letterName("two");
  const created = await createCodes(page, name, 2, 1000000);
  expect(created.codes).toHaveLength(2);
  await closeDialog(page);
  await search(page, name);
  await expect(page.getByText("共 2 条")).toBeVisible();
  for (const id of await shownIds(page)) await expect(rowOf(page, id).getByText("$2.00")).toBeVisible();
});

test.describe("looks", () => {
  test("dark mode and a 390 px phone", async ({ page }) => {
    await page.goto("/redemption");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    const name = letterName("look");
    await createCodes(page, name, 2);
    await expect(page.getByRole("dialog", { name: `兑换码「${name}」` })).toBeVisible();
    await shot(page, "redemption-created-dark");
    await closeDialog(page);
    await shot(page, "redemption-list-dark");
    await page.getByRole("button", { name: "添加兑换码" }).click();
    await shot(page, "redemption-drawer-dark");
    await page.getByRole("button", { name: "取消" }).click();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/redemption");
    await expect(page.getByRole("button", { name: "添加兑换码" })).toBeVisible();
    // The table scrolls sideways inside its box; the page itself never does.
    await expectFits(page, 390);
    await shot(page, "redemption-list-narrow");
    await page.getByRole("button", { name: "添加兑换码" }).click();
    await expect(page.getByRole("heading", { name: "创建新的兑换码" })).toBeVisible();
    // Wait for the drawer to finish sliding in.
    await expect(page.getByRole("textbox", { name: "名称", exact: true })).toBeInViewport({ ratio: 1 });
    await shot(page, "redemption-drawer-narrow");
  });
});
