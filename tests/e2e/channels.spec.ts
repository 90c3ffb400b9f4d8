// The channel pages (spec §2 Channel management, §4 Channel status and form behaviour, §5 Channel,
// §7 Channels, §8) driven through the real console as root, against the mock OpenAI upstream (chat,
// for channel tests) and the mock vendor account endpoints (model list, billing), both behind one
// small router on 127.0.0.1:5001 that the channels' base_url points at. Screenshots in light, dark
// and at 390 px.
import http from "node:http";
import { type OpenAIMock, startOpenAIMock } from "../mocks/openai-upstream";
import { startVendorAccountsMock, type VendorAccountsMock } from "../mocks/vendor-accounts";
import { ROOT_STATE } from "./env";
import type { Locator } from "@playwright/test";
import { expect, expectFits, type Page, setOption, shot, test, toast } from "./support";

test.use({ storageState: ROOT_STATE });
test.describe.configure({ mode: "serial" });

const ROUTER_PORT = Number(process.env.QIAO_E2E_MOCK_PORT) || 5001;
const UPSTREAM = `http://127.0.0.1:${ROUTER_PORT}`;

let openai: OpenAIMock;
let vendor: VendorAccountsMock;
let router: http.Server;

test.beforeAll(async () => {
  openai = await startOpenAIMock();
  vendor = await startVendorAccountsMock();
  // Account endpoints (model list, billing) go to the vendor mock, the rest (chat) to the OpenAI mock.
  router = http.createServer((req, res) => {
    const target = /^\/v1\/(models|dashboard)/.test(req.url ?? "") ? vendor.url : openai.url;
    const up = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on("error", () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => router.listen(ROUTER_PORT, "127.0.0.1", resolve));
});

test.afterAll(async () => {
  router.closeAllConnections();
  await new Promise<void>((resolve) => router.close(() => resolve()));
  await openai.close();
  await vendor.close();
});

const uid = Date.now().toString(36);
const MAIN = `main${uid}`;
const BATCH = `batch${uid}`;

/** The model of the last request the OpenAI mock saw. */
const lastModel = () => (openai.requests.at(-1)?.json as { model?: string } | undefined)?.model;

const row = (page: Page, name: string) => page.locator("tbody tr").filter({ has: page.getByRole("cell", { name, exact: true }) });

async function search(page: Page, values: { keyword?: string; model?: string }) {
  const wanted = new URLSearchParams();
  if (values.keyword) wanted.set("keyword", values.keyword);
  if (values.model) wanted.set("model", values.model);
  // Retried: typing into the form while a navigation is still settling can be reset by it.
  await expect(async () => {
    await page.getByRole("textbox", { name: "渠道 ID、名称或密钥" }).fill(values.keyword ?? "");
    await page.getByRole("textbox", { name: "模型", exact: true }).fill(values.model ?? "");
    await page.getByRole("button", { name: "查询", exact: true }).click();
    await expect.poll(() => new URL(page.url()).searchParams.toString(), { timeout: 3000 }).toBe(wanted.toString());
  }).toPass({ timeout: 15_000 });
}

/** Mantine's gray "light" badge background in light mode (gray-1). */
const GRAY_LIGHT_BG = "rgb(241, 243, 245)";

/** A row's response-time tag (the badge itself, which carries the colour). */
const timeTag = (row: Locator) => row.locator(".mantine-Badge-root").filter({ hasText: /^\d+\.\d{2} 秒$/ });

/** The opacity an element is drawn with: its own times every ancestor's. */
const effectiveOpacity = (target: Locator) =>
  target.evaluate((el) => {
    let opacity = 1;
    for (let node: Element | null = el; node; node = node.parentElement) opacity *= Number(getComputedStyle(node).opacity);
    return opacity;
  });

async function confirm(page: Page, label: string) {
  await page.getByRole("dialog").getByRole("button", { name: label }).click();
}

test("the editor validates, fetches models, creates one and a batch, and edits", async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto("/channel");
  await page.getByRole("link", { name: "添加渠道", exact: true }).click();
  await expect(page.getByRole("heading", { name: "创建新的渠道" })).toBeVisible();

  // Name and key are required; the type's default models are already chosen; auto-disable is on.
  await expect(page.getByRole("switch", { name: /自动禁用/ })).toBeChecked();
  await page.getByRole("button", { name: "提交", exact: true }).click();
  await expect(toast(page, "请填写渠道名称和渠道密钥！")).toBeVisible();

  // Type-specific fields: Azure's API version default, Cloudflare's account id.
  const type = page.getByRole("combobox", { name: "类型" });
  const pickType = async (label: string) => {
    await type.click();
    await page.getByRole("option", { name: label, exact: true }).click();
  };
  await pickType("Azure OpenAI");
  await expect(page.getByRole("textbox", { name: "API 版本", exact: true })).toHaveValue("2023-06-01-preview");
  await expect(page.getByRole("textbox", { name: "AZURE_OPENAI_ENDPOINT", exact: true })).toBeVisible();
  await pickType("Cloudflare");
  await expect(page.getByRole("textbox", { name: "Account ID", exact: true })).toHaveValue("");
  // Types that run tasks only (Midjourney /mj, Suno /suno) are listed and picked like the others.
  await type.click();
  await type.fill("Suno");
  const suno = page.getByRole("option", { name: "Suno API", exact: true });
  await expect(suno).toBeEnabled();
  await shot(page, "channel-editor-types");
  await suno.click();
  await expect(type).toHaveValue("Suno API");
  // Models are only prefilled when empty: clear them, then pick DeepSeek.
  await page.getByRole("button", { name: "清除所有模型", exact: true }).click();
  await pickType("DeepSeek");
  // The models MultiSelect is the first one on the form (groups is the second).
  const models = page.locator(".mantine-MultiSelect-root").first();
  await expect(models.getByText("deepseek-chat")).toBeVisible();
  await pickType("OpenAI");

  await page.getByRole("textbox", { name: "名称", exact: true }).fill(MAIN);
  await page.getByRole("textbox", { name: "Base URL", exact: true }).fill(`${UPSTREAM}/`);
  await page.getByRole("button", { name: "清除所有模型", exact: true }).click();
  // Fetching the model list needs a key; an upstream failure is reported with the reason.
  await page.getByRole("button", { name: "获取模型列表", exact: true }).click();
  await expect(toast(page, "请先填写渠道密钥，获取模型列表需要密钥")).toBeVisible();
  await page.getByRole("textbox", { name: "密钥", exact: true }).fill("sk-e2e-main-key");
  vendor.setAccount({ failStatus: 500 });
  await page.getByRole("button", { name: "获取模型列表", exact: true }).click();
  await expect(toast(page, /获取模型列表失败：/)).toBeVisible();
  vendor.reset();
  await page.getByRole("button", { name: "提交", exact: true }).click();
  await expect(toast(page, "请至少选择一个模型！")).toBeVisible();

  // Fetch from the upstream (OpenAI format, with the key typed in).
  await page.getByRole("button", { name: "获取模型列表", exact: true }).click();
  await expect(toast(page, "已获取 3 个模型")).toBeVisible();
  await expect(models.getByText("gpt-4o-mini")).toBeVisible();
  // Custom models: a duplicate is reported, the new one added.
  await page.getByRole("textbox", { name: "自定义模型名称", exact: true }).fill("gpt-4o, my-model");
  await page.getByRole("button", { name: "填入", exact: true }).click();
  await expect(toast(page, "部分模型已存在")).toBeVisible();
  await expect(models.getByText("my-model")).toBeVisible();

  // The mappings must be JSON objects.
  await page.getByRole("textbox", { name: "模型重定向", exact: true }).fill("{bad");
  await page.getByRole("button", { name: "提交", exact: true }).click();
  await expect(toast(page, "模型映射必须是合法的 JSON 格式！")).toBeVisible();
  await page.getByRole("textbox", { name: "模型重定向", exact: true }).fill("");
  await page.getByRole("textbox", { name: "状态码复写", exact: true }).fill("[1]");
  await page.getByRole("button", { name: "提交", exact: true }).click();
  await expect(toast(page, "状态码复写必须是合法的 JSON 格式！")).toBeVisible();
  await page.getByRole("textbox", { name: "状态码复写", exact: true }).fill("");
  // Output limits: whole positive token counts per model.
  await page.getByRole("textbox", { name: "输出上限", exact: true }).fill('{"gpt-4o": 0}');
  await page.getByRole("button", { name: "提交", exact: true }).click();
  await expect(toast(page, "输出上限必须是 JSON 对象，每个模型的值为正整数！")).toBeVisible();
  await page.getByRole("textbox", { name: "输出上限", exact: true }).fill('{"gpt-4o": 4096}');
  await page.getByRole("textbox", { name: "默认测试模型", exact: true }).fill("gpt-4o-mini");
  await shot(page, "channel-editor");
  // The filled editor on a phone, in the light theme (the dark one is in "looks").
  await page.setViewportSize({ width: 390, height: 844 });
  await expectFits(page, 390);
  // From the top, so the fixed header is drawn where it sits.
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, "channel-editor-filled-narrow");
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByRole("button", { name: "提交", exact: true }).click();
  await expect(toast(page, "渠道创建成功！")).toBeVisible();
  await expect(page).toHaveURL(/\/channel$/);
  await expect(row(page, MAIN)).toBeVisible();

  // Batch: one channel per key line, with OpenAI's default models.
  await page.getByRole("link", { name: "添加渠道", exact: true }).click();
  await page.getByRole("textbox", { name: "名称", exact: true }).fill(BATCH);
  await page.getByRole("textbox", { name: "Base URL", exact: true }).fill(UPSTREAM);
  await page.getByRole("switch", { name: /批量创建/ }).check();
  await page.getByRole("textbox", { name: "密钥", exact: true }).fill("sk-b1\nsk-b2\n\nsk-b3\n");
  await page.getByRole("button", { name: "提交", exact: true }).click();
  await expect(toast(page, "已成功创建 3 个渠道！")).toBeVisible();
  await expect(page).toHaveURL(/\/channel$/);
  await search(page, { keyword: BATCH });
  await expect(page.locator("tbody tr")).toHaveCount(3);

  // A channel that does not exist is the not-found page.
  await page.goto("/channel/edit/987654");
  await expect(page.getByRole("heading", { name: /编辑渠道/ })).toHaveCount(0);
  await expect(page.getByText(/404|页面不存在|未找到/).first()).toBeVisible();
  await page.goto("/channel");

  // Edit: nothing changed is said so; the key is write-only (blank); a change saves.
  await search(page, { keyword: MAIN });
  await row(page, MAIN).getByRole("link", { name: "编辑", exact: true }).click();
  await expect(page.getByRole("heading", { name: `编辑渠道「${MAIN}」` })).toBeVisible();
  await expect(page.getByRole("textbox", { name: "密钥", exact: true })).toHaveValue("");
  await expect(page.getByRole("textbox", { name: "Base URL", exact: true })).toHaveValue(UPSTREAM);
  await expect(page.getByRole("textbox", { name: "输出上限", exact: true })).toHaveValue('{"gpt-4o": 4096}');
  await page.getByRole("button", { name: "提交", exact: true }).click();
  await expect(toast(page, "你似乎并没有修改什么")).toBeVisible();
  // Fetch models of the stored channel (its stored key).
  await page.getByRole("button", { name: "获取模型列表", exact: true }).click();
  await expect(toast(page, "已获取 3 个模型")).toBeVisible();
  await page.getByRole("textbox", { name: "权重", exact: true }).fill("2");
  // Two submits in one go: the second is refused while the first is saving.
  await page
    .locator("form")
    .filter({ has: page.getByRole("button", { name: "提交", exact: true }) })
    .evaluate((form: HTMLFormElement) => {
      form.requestSubmit();
      form.requestSubmit();
    });
  await expect(toast(page, "提交失败，请勿重复提交！")).toBeVisible();
  await expect(toast(page, "渠道更新成功！")).toBeVisible();
  await expect(page).toHaveURL(/\/channel$/);
  await expect(row(page, MAIN).getByRole("textbox", { name: /^权重 \d+$/ })).toHaveValue("2");
});

test("list: search, test, balance, enable/disable, in-place edits, sorting and deletes", async ({ page }) => {
  test.setTimeout(150_000);
  await page.goto("/channel");
  // Model filter: only the main channel serves the custom model added in the editor.
  await search(page, { model: "my-model" });
  await expect(page.locator("tbody tr")).toHaveCount(1);
  await expect(row(page, MAIN)).toBeVisible();
  await expect(page).toHaveURL(/model=my-model/);
  const main = row(page, MAIN);
  await expect(main.getByText("未测试")).toBeVisible();
  await expect(main.getByText("OpenAI", { exact: true })).toBeVisible();

  // Test with the default test model, then with a model chosen from the channel's list.
  await main.getByRole("button", { name: "测试", exact: true }).click();
  await expect(toast(page, new RegExp(`^通道 ${MAIN} 测试成功，耗时 \\d+\\.\\d{2} 秒。$`))).toBeVisible();
  await expect(main.getByText(/^\d+\.\d{2} 秒$/)).toBeVisible();
  expect(lastModel()).toBe("gpt-4o-mini");
  await main.getByRole("button", { name: /^选择测试模型/ }).click();
  await page.getByRole("menuitem", { name: "my-model", exact: true }).click();
  await expect(toast(page, new RegExp(`^通道 ${MAIN} 测试成功`)).first()).toBeVisible();
  await expect.poll(lastModel).toBe("my-model");

  // Balance: hard limit 120 minus 20.50 used this month.
  await main.getByRole("button", { name: "更新余额", exact: true }).click();
  await expect(toast(page, `通道 ${MAIN} 余额更新成功！`)).toBeVisible();
  await expect(main.getByRole("button", { name: /^更新余额 \d+$/ })).toHaveText("$99.50");

  // Disable greys the row's text (still readable), but not 启用, the action that matters there;
  // the last test's time turns grey too; enable restores both.
  const nameColor = () => main.getByRole("cell", { name: MAIN, exact: true }).evaluate((el) => getComputedStyle(el).color);
  const enabledColor = await nameColor();
  await main.getByRole("button", { name: "禁用", exact: true }).click();
  await expect(main.getByText("已禁用")).toBeVisible();
  await expect.poll(nameColor).not.toBe(enabledColor);
  const enable = main.getByRole("button", { name: "启用", exact: true });
  await expect.poll(() => effectiveOpacity(enable)).toBe(1);
  await expect(timeTag(main)).toHaveCSS("background-color", GRAY_LIGHT_BG);
  await shot(page, "channel-list-disabled");
  await enable.click();
  await expect(main.getByText("已启用")).toBeVisible();
  await expect.poll(nameColor).toBe(enabledColor);
  await expect(timeTag(main)).not.toHaveCSS("background-color", GRAY_LIGHT_BG);

  // Priority and weight in place: saved on Enter / blur; the server's limits answer bad values.
  const priority = main.getByRole("textbox", { name: /^优先级 \d+$/ });
  await priority.fill("-1000");
  await priority.press("Enter");
  await expect(toast(page, "优先级不能小于 -999")).toBeVisible();
  await expect(priority).toHaveValue("0");
  await priority.fill("7");
  await priority.press("Enter");
  await expect(toast(page, "操作成功完成！").first()).toBeVisible();
  const weight = main.getByRole("textbox", { name: /^权重 \d+$/ });
  await weight.fill("-1");
  await weight.blur();
  await expect(toast(page, "权重不能小于 0")).toBeVisible();
  await expect(weight).toHaveValue("2");
  await weight.fill("5");
  const saved = page.waitForResponse((r) => r.url().endsWith("/api/channel/") && r.request().method() === "PUT");
  await weight.blur();
  expect((await (await saved).json()).success).toBe(true);
  await page.reload();
  await expect(row(page, MAIN).getByRole("textbox", { name: /^优先级 \d+$/ })).toHaveValue("7");
  await expect(row(page, MAIN).getByRole("textbox", { name: /^权重 \d+$/ })).toHaveValue("5");

  // Sorting: by priority first by default (the main channel, priority 7, leads); the ID toggle is remembered.
  await page.goto("/channel");
  await expect(page.locator("tbody tr").first()).toContainText(MAIN);
  await page.getByRole("switch", { name: "ID 排序", exact: true }).check();
  await expect(page.locator("tbody tr").first()).toContainText(BATCH);
  expect(await page.evaluate(() => localStorage.getItem("id-sort"))).toBe("true");
  await page.reload();
  await expect(page.getByRole("switch", { name: "ID 排序", exact: true })).toBeChecked();
  await expect(page.locator("tbody tr").first()).toContainText(BATCH);
  await shot(page, "channel-list");
  await page.getByRole("switch", { name: "ID 排序", exact: true }).uncheck();
  await expect(page.locator("tbody tr").first()).toContainText(MAIN);

  // A dead key with auto-disable on: status 3 with the reason in a tooltip.
  await setOption(page.request, "AutomaticDisableChannelEnabled", "true");
  // (A little slow, so the failed test records a time above zero.)
  openai.setBehaviour({ failStatus: 401, stallMs: 30 });
  await search(page, { keyword: BATCH });
  const batchRows = page.locator("tbody tr");
  await expect(batchRows).toHaveCount(3);
  const victim = batchRows.first();
  await victim.getByRole("button", { name: "测试", exact: true }).click();
  // The failure names the channel; the fast 401 that disabled it does not leave a green time.
  await expect(toast(page, new RegExp(`^通道「${BATCH}」测试失败：.+`))).toBeVisible();
  await expect(victim.getByText("自动禁用")).toBeVisible();
  await expect(timeTag(victim)).toHaveCSS("background-color", GRAY_LIGHT_BG);
  await victim.getByText("自动禁用").hover();
  await expect(page.getByRole("tooltip")).toContainText("原因：");
  openai.setBehaviour(null);
  await setOption(page.request, "AutomaticDisableChannelEnabled", "false");

  // Delete one (confirmed).
  await batchRows.nth(1).getByRole("button", { name: "删除", exact: true }).click();
  await confirm(page, "删除");
  await expect(toast(page, "删除成功！")).toBeVisible();
  await expect(batchRows).toHaveCount(2);

  // Batch delete: nothing selected is refused with the spec's text; one selected is deleted.
  await page.getByRole("switch", { name: "批量删除", exact: true }).check();
  await page.getByRole("button", { name: "删除所选通道", exact: true }).click();
  await expect(toast(page, "请先选择要删除的通道！")).toBeVisible();
  const enabledId = await batchRows.filter({ hasText: "已启用" }).first().getAttribute("data-row-id");
  await page.getByRole("checkbox", { name: `选择 ${enabledId}` }).check();
  await page.getByRole("button", { name: "删除所选通道", exact: true }).click();
  await confirm(page, "删除");
  await expect(toast(page, "已删除 1 个通道！")).toBeVisible();
  await expect(batchRows).toHaveCount(1);
  await expect(batchRows.first()).toContainText("自动禁用");

  // Delete disabled: the auto-disabled one goes, with the count.
  await page.getByRole("button", { name: "删除禁用通道", exact: true }).click();
  await confirm(page, "删除");
  await expect(toast(page, /^已删除所有禁用渠道，共计 [1-9]\d* 个$/)).toBeVisible();
  await expect(page.getByText("共 0 条")).toBeVisible();

  // Fix database consistency: the count of channels.
  await page.getByRole("button", { name: "修复数据库一致性", exact: true }).click();
  await expect(toast(page, /^已修复 \d+ 个通道！$/)).toBeVisible();
});

test("test all and update all balances run in the background with progress", async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto("/channel");
  // A slow upstream, so the run is seen in progress while the page stays usable.
  openai.setBehaviour({ stallMs: 2500 });
  await page.getByRole("button", { name: "测试所有通道", exact: true }).click();
  await expect(toast(page, "已开始测试所有通道，请刷新页面查看结果")).toBeVisible();
  const progress = page.getByRole("status", { name: "测试所有通道" });
  await expect(progress).toContainText("进行中");
  // Still usable: a search works while the run goes on.
  await search(page, { keyword: MAIN });
  await expect(page.locator("tbody tr")).toHaveCount(1);
  // Done: the panel closes and the result is told once, in a toast.
  await expect(toast(page, /^测试所有通道已完成 (\d+)\/\1：成功 [1-9]/)).toBeVisible({ timeout: 60_000 });
  await expect(progress).toHaveCount(0);
  openai.setBehaviour(null);

  await page.getByRole("button", { name: "更新所有已启用通道余额", exact: true }).click();
  await expect(toast(page, /^更新所有已启用通道余额已完成 (\d+)\/\1/)).toBeVisible({ timeout: 60_000 });
  await expect(page.getByRole("status", { name: "更新所有已启用通道余额" })).toHaveCount(0);
  await expect(row(page, MAIN).getByRole("button", { name: /^更新余额 \d+$/ })).toHaveText("$99.50");
  await shot(page, "channel-list-jobs");
});

test.describe("looks", () => {
  test("dark mode and a 390 px phone", async ({ page }) => {
    await page.goto("/channel");
    await page.getByRole("button", { name: "切换明暗主题", exact: true }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    await expect(row(page, MAIN)).toBeVisible();
    // One channel disabled, to see a greyed row (and its 启用) in dark mode and on the phone.
    await row(page, MAIN).getByRole("button", { name: "禁用", exact: true }).click();
    await expect(row(page, MAIN).getByText("已禁用")).toBeVisible();
    await shot(page, "channel-list-dark");
    await page.getByRole("link", { name: "添加渠道", exact: true }).click();
    await expect(page.getByRole("heading", { name: "创建新的渠道" })).toBeVisible();
    await shot(page, "channel-editor-dark");
    await page.getByRole("combobox", { name: "类型" }).fill("Claude");
    await expect(page.getByRole("option", { name: /^Anthropic Claude/ })).toBeVisible();
    await shot(page, "channel-editor-types-dark");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/channel");
    await expect(page.getByRole("link", { name: "添加渠道", exact: true })).toBeVisible();
    await expectFits(page, 390);
    // A card per channel on a phone, its 启用 drawn at full strength under the greyed text.
    const card = page.getByRole("listitem").filter({ hasText: MAIN });
    await expect(card.getByRole("button", { name: "启用", exact: true })).toBeVisible();
    const faded = await card.getByRole("button", { name: "启用", exact: true }).evaluate((b) => {
      for (let e: Element | null = b; e; e = e.parentElement) if (Number(getComputedStyle(e).opacity) < 1) return true;
      return false;
    });
    expect(faded).toBe(false);
    await shot(page, "channel-list-narrow");
    await page.goto("/channel/add");
    await expect(page.getByRole("heading", { name: "创建新的渠道" })).toBeVisible();
    await expectFits(page, 390);
    await shot(page, "channel-editor-narrow");
    await page.getByRole("combobox", { name: "类型" }).fill("Claude");
    await expect(page.getByRole("option", { name: /^Anthropic Claude/ })).toBeVisible();
    await shot(page, "channel-editor-types-narrow");
    await page.goto("/channel");
    await card.getByRole("button", { name: "启用", exact: true }).click();
    await expect(card.getByText("已启用")).toBeVisible();
  });
});
