// Root's "other" settings tab (spec §2 Settings → other, §9 links and text): notice, system name,
// logo, home page content, about and footer, each saved through its own form and kept after a
// reload; the notice shown once per change to each viewer; no script of any content runs; an
// address as home or about content is shown in a sandboxed frame.
import type { Browser } from "@playwright/test";
import { E2E_BASE_URL, ROOT_STATE } from "./env";
import { type PageServer, startPageServer } from "./page-server";
import { expect, expectFits, type Page, shot, test, toast, uniqueName } from "./support";

test.use({ storageState: ROOT_STATE });

const FIELDS = ["Notice", "SystemName", "Logo", "HomePageContent", "About", "Footer"];
const card = (page: Page, name: string) => page.getByRole("region", { name });
let saved: Record<string, string> = {};

async function rootPut(page: Page, key: string, value: string) {
  const res = await page.request.put("/api/option/", { data: { key, value }, headers: { "New-Api-User": "1" } });
  expect((await res.json()).success, await res.text()).toBe(true);
}

test.beforeAll(async ({ browser }) => {
  const context = await browser.newContext({ baseURL: E2E_BASE_URL, storageState: ROOT_STATE });
  const res = await context.request.get("/api/option/", { headers: { "New-Api-User": "1" } });
  const options: { key: string; value: string }[] = (await res.json()).data;
  saved = Object.fromEntries(options.filter((o) => FIELDS.includes(o.key)).map((o) => [o.key, o.value]));
  expect(Object.keys(saved).sort()).toEqual([...FIELDS].sort());
  await context.close();
});

// Every test leaves the texts as they were, for the specs that follow.
test.afterEach(async ({ page }) => {
  for (const [key, value] of Object.entries(saved)) await rootPut(page, key, value);
});

/** Types a value into a field's form and saves it with the form's own button. */
async function saveField(page: Page, title: string, label: string, value: string, button: string) {
  const form = card(page, title);
  const edit = form.getByRole("tab", { name: "编辑" });
  if (await edit.count()) await edit.click();
  await form.getByLabel(label, { exact: true }).fill(value);
  await form.getByRole("button", { name: button }).click();
  await expect(toast(page, "保存成功").last()).toBeVisible();
}

test("each field saves, takes effect and is kept after a reload", async ({ page }) => {
  const name = uniqueName("桥站");
  await page.goto("/setting?tab=other");
  await expect(page.getByRole("tab", { name: "其他设置" })).toHaveAttribute("aria-selected", "true");
  await shot(page, "settings-other");

  await saveField(page, "系统名称", "系统名称", name, "设置系统名称");
  await expect(page.getByRole("link", { name: `${name} 首页` })).toBeVisible();

  await saveField(page, "Logo", "Logo 图片地址", "/icon.png", "设置 Logo");
  await expect(page.getByRole("link", { name: `${name} 首页` }).getByRole("img", { name: "logo" })).toHaveAttribute("src", "/icon.png");

  // Markdown footer: previewed as it will look, then shown in the footer at once.
  const footer = card(page, "页脚");
  await footer.getByLabel("页脚", { exact: true }).fill("**自定义页脚** · [项目主页](https://example.com)");
  await footer.getByRole("tab", { name: "预览" }).click();
  await expect(footer.getByTestId("preview-Footer").locator("strong")).toHaveText("自定义页脚");
  await footer.getByRole("button", { name: "设置页脚" }).click();
  await expect(toast(page, "保存成功").last()).toBeVisible();
  await expect(page.getByTestId("site-footer").locator("strong")).toHaveText("自定义页脚");
  await expect(page.getByTestId("site-footer").getByRole("link", { name: "项目主页" })).toHaveAttribute("rel", "noopener noreferrer");

  await saveField(page, "关于", "关于", "# 关于我们\n\n这是**关于**页面。", "保存关于");
  await saveField(page, "首页内容", "首页内容", "# 欢迎来到桥\n\n首页正文", "保存首页内容");

  await page.reload();
  await expect(card(page, "系统名称").getByLabel("系统名称", { exact: true })).toHaveValue(name);
  await expect(card(page, "Logo").getByLabel("Logo 图片地址", { exact: true })).toHaveValue("/icon.png");
  await expect(card(page, "页脚").getByLabel("页脚", { exact: true })).toHaveValue("**自定义页脚** · [项目主页](https://example.com)");
  await expect(card(page, "关于").getByLabel("关于", { exact: true })).toHaveValue("# 关于我们\n\n这是**关于**页面。");
  await expect(card(page, "首页内容").getByLabel("首页内容", { exact: true })).toHaveValue("# 欢迎来到桥\n\n首页正文");

  await page.goto("/about");
  await expect(page.getByRole("heading", { name: "关于我们" })).toBeVisible();
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "欢迎来到桥" })).toBeVisible();
  await expect(page.getByTestId("site-footer")).toContainText("自定义页脚");
});

test("a notice is shown once to each viewer, and again after it changes", async ({ page, browser }) => {
  // Two viewers, a dozen page loads: more than the default minute on a busy two-core machine.
  test.setTimeout(150_000);
  const first = uniqueName("维护通知");
  await page.goto("/setting?tab=other");
  const form = card(page, "公告");
  await form.getByLabel("公告", { exact: true }).fill(`## ${first}\n\n今晚 **22:00** 维护`);
  await form.getByRole("tab", { name: "预览" }).click();
  await expect(form.getByTestId("preview-Notice").getByRole("heading", { name: first })).toBeVisible();
  await shot(page, "settings-other-preview");
  await form.getByRole("button", { name: "保存公告" }).click();
  await expect(toast(page, "保存成功")).toBeVisible();

  const notice = (p: Page) => p.getByRole("alert").filter({ hasText: "公告" });
  await page.goto("/");
  await expect(notice(page).getByRole("heading", { name: first })).toBeVisible();
  await expect(notice(page).locator("strong")).toHaveText("22:00");
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "欢迎使用" }).or(page.locator(".admin-content")).first()).toBeVisible();
  await expect(page.getByText(first)).toHaveCount(0);

  // Another viewer (a visitor in their own browser) sees it once too.
  const visitor = await openVisitor(browser);
  await visitor.goto("/");
  await expect(notice(visitor).getByRole("heading", { name: first })).toBeVisible();
  await visitor.reload();
  await visitor.waitForLoadState("networkidle");
  await expect(visitor.getByText(first)).toHaveCount(0);

  // A changed notice is shown again, once.
  const second = uniqueName("新公告");
  await page.goto("/setting?tab=other");
  await saveField(page, "公告", "公告", second, "保存公告");
  await page.goto("/");
  await expect(notice(page)).toContainText(second);
  await page.goto("/");
  await expect(page.getByText(second)).toHaveCount(0);
  await visitor.reload();
  await expect(notice(visitor)).toContainText(second);
  await visitor.context().close();
});

async function openVisitor(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ baseURL: E2E_BASE_URL, locale: "zh-CN" });
  return context.newPage();
}

// Each payload would run a script if it reached the page unsanitized.
const XSS = [
  `<img src=x onerror="window.__xss='img'">`,
  `<svg onload="window.__xss='svg'"><circle r="1"/></svg>`,
  `<script>window.__xss='script'</script>`,
  `<iframe srcdoc="<script>parent.__xss='srcdoc'</script>"></iframe>`,
  `<a href="javascript:window.__xss='href'">坏链接</a>`,
  `[坏的 Markdown 链接](javascript:window.__xss='md')`,
  `<details open ontoggle="window.__xss='toggle'"><summary>细节</summary></details>`,
  `<form action="javascript:window.__xss='form'"><button>提交</button></form>`,
].join("\n\n");

/** Nothing executable survived in the admin content on the page, and nothing ran. */
async function expectInert(page: Page, where: string) {
  const content = page.locator(".admin-content, .custom-footer");
  await expect(content.first(), where).toBeVisible();
  expect(await content.locator("script, iframe, form, [onerror], [onload], [ontoggle]").count(), where).toBe(0);
  for (const href of await content.locator("a").evaluateAll((as) => as.map((a) => a.getAttribute("href")))) {
    expect(href ?? "", where).not.toMatch(/^\s*javascript:/i);
  }
  await content.getByText("坏链接").first().click();
  expect(await page.evaluate(() => (window as { __xss?: string }).__xss), where).toBeUndefined();
}

test("no script in any content runs, in the preview or on the site", async ({ page }) => {
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto("/setting?tab=other");
  await saveField(page, "公告", "公告", `# 公告标题\n\n${XSS}`, "保存公告");
  await saveField(page, "首页内容", "首页内容", `# 首页标题\n\n${XSS}`, "保存首页内容");
  await saveField(page, "关于", "关于", `# 关于标题\n\n${XSS}`, "保存关于");
  await saveField(page, "页脚", "页脚", `页脚 ${XSS}`, "设置页脚");

  for (const title of ["公告", "首页内容", "关于"]) {
    await card(page, title).getByRole("tab", { name: "预览" }).click();
    await expectInert(page, `${title} preview`);
  }
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "首页标题" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "公告标题" })).toBeVisible();
  await expectInert(page, "home");
  await page.goto("/about");
  await expect(page.getByRole("heading", { name: "关于标题" })).toBeVisible();
  await expectInert(page, "about");
  expect(dialogs).toEqual([]);
});

test.describe("address content", () => {
  let site: PageServer;
  test.beforeAll(async () => {
    site = await startPageServer("外部页面");
  });
  test.afterAll(async () => {
    await site.close();
  });

  test("a URL as home page or about content is shown in a sandboxed frame", async ({ page }) => {
    await page.goto("/setting?tab=other");
    await saveField(page, "首页内容", "首页内容", `${site.origin}/home`, "保存首页内容");
    await saveField(page, "关于", "关于", `${site.origin}/about`, "保存关于");
    await card(page, "关于").getByRole("tab", { name: "预览" }).click();
    await expect(page.frameLocator('iframe[title="关于预览"]').locator("#path")).toHaveText("/about");

    const sandbox = "allow-scripts allow-same-origin allow-forms allow-popups";
    await page.goto("/");
    await expect(page.locator('iframe[title="首页"]')).toHaveAttribute("sandbox", sandbox);
    await expect(page.frameLocator('iframe[title="首页"]').locator("#path")).toHaveText("/home");
    await shot(page, "home-embedded");
    await page.goto("/about");
    await expect(page.locator('iframe[title="关于"]')).toHaveAttribute("sandbox", sandbox);
    await expect(page.frameLocator('iframe[title="关于"]').getByRole("heading", { name: "外部页面" })).toBeVisible();

    // A page of the console's own origin may run scripts but never keeps that origin.
    await rootPut(page, "About", `${E2E_BASE_URL}/pricing`);
    await page.goto("/about");
    await expect(page.locator('iframe[title="关于"]')).toHaveAttribute("sandbox", "allow-scripts allow-forms allow-popups");
  });
});

test.describe("looks", () => {
  test("dark mode and a 390 px phone", async ({ page }) => {
    await page.goto("/setting?tab=other");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    await shot(page, "settings-other-dark");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/setting?tab=other");
    await expect(card(page, "公告")).toBeVisible();
    await expectFits(page, 390);
    await shot(page, "settings-other-narrow");
  });
});

// Issue 20.19: the browser tab says the configured system name on every page, in the page as
// served (before any script runs) and after in-app navigation.
test("the tab title is the system name on every page", async ({ page, browser }) => {
  const name = uniqueName("标题站");
  await rootPut(page, "SystemName", name);
  for (const path of ["/", "/login", "/pricing", "/token", "/log", "/no/such/page"]) {
    const html = await (await page.request.get(path)).text();
    expect(/<title>([^<]*)<\/title>/.exec(html)?.[1], path).toBe(name);
  }
  await page.goto("/token");
  await expect(page).toHaveTitle(name);
  await page.getByRole("navigation", { name: "侧边菜单" }).getByRole("link", { name: "日志", exact: true }).click();
  await expect(page.getByRole("heading", { name: "使用日志" })).toBeVisible();
  await expect(page).toHaveTitle(name);
  const visitor = await browser.newContext({ baseURL: E2E_BASE_URL });
  const visitorPage = await visitor.newPage();
  await visitorPage.goto("/login");
  await expect(visitorPage).toHaveTitle(name);
  await visitor.close();
});
