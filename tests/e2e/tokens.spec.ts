// The token page (spec §2 Token page, §4 Token status, §5 Token form, §8) driven through the real
// console as an ordinary user; screenshots in light, dark and at 390 px.
import { clipboardText, expect, expectFits, newUserSession, type Page, shot, test, toast } from "./support";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

const row = (page: Page, name: string | RegExp) =>
  page.getByRole("row").filter({ has: page.getByRole("cell", { name, exact: typeof name === "string" }) });

async function createTokens(page: Page, name: string, count: number) {
  await page.getByRole("button", { name: "添加令牌" }).click();
  await page.getByRole("textbox", { name: "名称", exact: true }).fill(name);
  if (count !== 1) await page.getByLabel("新建数量").fill(String(count));
  await page.getByRole("button", { name: "提交" }).click();
  await expect(toast(page, `${count}个令牌创建成功，请在列表页面点击复制获取令牌！`)).toBeVisible();
}

test("an ordinary user creates, views, copies, disables, edits, searches and deletes tokens", async ({ page }) => {
  await newUserSession(page, "tok");
  await expect(page.getByText("令牌无法精确控制使用额度，只允许自用，请勿直接将令牌分发给他人。")).toBeVisible();

  // Copy selected with nothing selected.
  await page.getByRole("button", { name: "复制所选令牌" }).click();
  await expect(toast(page, "请至少选择一个令牌！")).toBeVisible();

  // Name is required on create; a bad expiry is refused with the spec's text; nothing is created.
  await page.getByRole("button", { name: "添加令牌" }).click();
  await page.getByRole("button", { name: "提交" }).click();
  await expect(page.getByRole("dialog").getByText("请输入名称")).toBeVisible();
  await page.getByRole("textbox", { name: "名称", exact: true }).fill("bad");
  await page.getByLabel("过期时间").fill("明天下午");
  await page.getByRole("button", { name: "提交" }).click();
  await expect(toast(page, "过期时间格式错误！")).toBeVisible();
  await page.getByRole("button", { name: "取消" }).click();
  await expect(page.getByText("共 0 条")).toBeVisible();

  // A batch of three, sent as one request: the first keeps the name, the others get -xxxxxx.
  const creates: string[] = [];
  page.on("request", (r) => {
    if (r.method() === "POST" && new URL(r.url()).pathname === "/api/token/") creates.push(r.url());
  });
  await createTokens(page, "batch", 3);
  expect(creates).toHaveLength(1);
  await expect(row(page, "batch")).toHaveCount(1);
  await expect(row(page, /^batch-[A-Za-z0-9]{6}$/)).toHaveCount(2);
  await expect(page.getByText("共 3 条")).toBeVisible();
  await expect(row(page, "batch").getByText("$1.00")).toBeVisible();
  await expect(row(page, "batch").getByText("永不过期")).toBeVisible();
  await shot(page, "token-list-user");

  // View shows the whole key; copy puts it on the clipboard.
  await row(page, "batch").getByRole("button", { name: "查看" }).click();
  const keyText = ((await page.getByRole("dialog").locator(".mantine-Code-root").textContent()) ?? "").trim();
  expect(keyText).toMatch(/^sk-[A-Za-z0-9]{48}$/);
  await page.keyboard.press("Escape");
  await row(page, "batch").getByRole("button", { name: "复制" }).click();
  await expect(toast(page, "已复制到剪贴板！").first()).toBeVisible();
  expect(await clipboardText(page)).toBe(keyText);

  // Copy selected: one `name key` line per selected token.
  await page.getByRole("checkbox", { name: "全选" }).check();
  await page.getByRole("button", { name: "复制所选令牌" }).click();
  await expect.poll(async () => (await clipboardText(page)).split("\n").length).toBe(3);
  const lines = (await clipboardText(page)).split("\n");
  expect(lines).toContain(`batch ${keyText}`);
  for (const line of lines) expect(line).toMatch(/^batch(-[A-Za-z0-9]{6})? sk-[A-Za-z0-9]{48}$/);

  // Disable, then enable again: the label follows the status.
  await row(page, "batch").getByRole("button", { name: "禁用" }).click();
  await expect(row(page, "batch").getByText("已禁用")).toBeVisible();
  await row(page, "batch").getByRole("button", { name: "启用" }).click();
  await expect(row(page, "batch").getByText("已启用")).toBeVisible();

  // Edit: rename, unlimited quota, model limits on; the row shows it.
  await row(page, "batch").getByRole("button", { name: "编辑" }).click();
  await expect(page.getByRole("heading", { name: "更新令牌信息" })).toBeVisible();
  await expect(page.getByRole("textbox", { name: "名称", exact: true })).toHaveValue("batch");
  await page.getByRole("textbox", { name: "名称", exact: true }).fill("renamed");
  await page.getByLabel("无限额度").check();
  await expect(page.getByLabel(/^额度/)).toBeDisabled();
  await page.getByLabel("启用模型限制（非必要，不建议启用）").check();
  await page.getByLabel("IP 白名单").fill("10.0.0.0/8\n127.0.0.1");
  await page.getByRole("button", { name: "提交" }).click();
  await expect(toast(page, "令牌更新成功！")).toBeVisible();
  await expect(row(page, "renamed").getByText("无限制")).toBeVisible();
  await expect(row(page, "renamed").getByText("限制模型")).toBeVisible();

  // Search by name (trimmed); the filter lives in the URL.
  await page.getByLabel("令牌名称").fill("  renamed ");
  await page.getByRole("button", { name: "查询" }).click();
  await expect(page).toHaveURL(/keyword=renamed/);
  await expect(page.getByText("共 1 条")).toBeVisible();
  // Search by the whole key.
  await page.getByLabel("令牌名称").fill("");
  await page.getByLabel("令牌 key").fill(keyText);
  await page.getByRole("button", { name: "查询" }).click();
  await expect(row(page, "renamed")).toHaveCount(1);
  await expect(page.getByText("共 1 条")).toBeVisible();

  // Delete asks first; cancel keeps the row, confirm removes it.
  await row(page, "renamed").getByRole("button", { name: "删除" }).click();
  await expect(page.getByText("确定是否要删除此令牌？")).toBeVisible();
  await page.getByRole("button", { name: "取消" }).click();
  await expect(row(page, "renamed")).toHaveCount(1);
  await row(page, "renamed").getByRole("button", { name: "删除" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "删除" }).click();
  await expect(toast(page, "删除成功！")).toBeVisible();
  await expect(page.getByText("共 0 条")).toBeVisible();
});

test("the chat menu opens the configured link with the key and address filled in", async ({ page, context }) => {
  await newUserSession(page, "chat");
  await createTokens(page, "chat", 1);
  await context.route("https://app.nextchat.dev/**", (route) => route.fulfill({ body: "chat", contentType: "text/plain" }));
  await row(page, "chat").getByRole("button", { name: "查看" }).click();
  const key = ((await page.getByRole("dialog").locator(".mantine-Code-root").textContent()) ?? "").trim();
  await page.keyboard.press("Escape");
  await row(page, "chat").getByRole("button", { name: "聊天" }).click();
  const popup = page.waitForEvent("popup");
  await page.getByRole("menuitem", { name: "ChatGPT Next Web 官方示例" }).click();
  const opened = decodeURIComponent((await popup).url());
  expect(opened).toContain(`"key":"${key}"`);
  expect(opened).toContain(`"url":"http://localhost:`);
});

test("paging: the page size is remembered and pages move through the URL", async ({ page }) => {
  await newUserSession(page, "page");
  await createTokens(page, "p", 12);
  await expect(page.getByText("共 12 条")).toBeVisible();
  await expect(page.locator("tbody tr")).toHaveCount(10);
  await page.getByRole("button", { name: "下一页" }).click();
  await expect(page).toHaveURL(/p=1/);
  await expect(page.locator("tbody tr")).toHaveCount(2);
  await page.getByRole("combobox", { name: "每页条数" }).click();
  await page.getByRole("option", { name: "20 条/页" }).click();
  await expect(page.locator("tbody tr")).toHaveCount(12);
  // A fresh visit of /token uses the remembered size, in the server render already.
  await page.goto("/token");
  await expect(page.locator("tbody tr")).toHaveCount(12);
  await expect(page.getByRole("combobox", { name: "每页条数" })).toHaveValue("20 条/页");
  expect(await page.evaluate(() => localStorage.getItem("page-size"))).toBe("20");
});

test.describe("looks", () => {
  test("dark mode and a 390 px phone", async ({ page }) => {
    await newUserSession(page, "look");
    await createTokens(page, "look", 2);
    await expect(page.getByText("共 2 条")).toBeVisible();
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    await shot(page, "token-list-dark");
    await page.getByRole("button", { name: "添加令牌" }).click();
    await shot(page, "token-drawer-dark");
    await page.getByRole("button", { name: "取消" }).click();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/token");
    await expect(page.getByRole("button", { name: "添加令牌" })).toBeVisible();
    // The table scrolls sideways inside its box; the page itself never does.
    await expectFits(page, 390);
    await shot(page, "token-list-narrow");
    await page.getByRole("button", { name: "添加令牌" }).click();
    await expect(page.getByRole("heading", { name: "创建新的令牌" })).toBeVisible();
    await shot(page, "token-drawer-narrow");
  });
});
