// The operation tab's sensitive-word and ratio sections, as root: save and reload, the spec's
// invalid-JSON text, the table view writing the same JSON, resetting the model ratios. Every test
// puts the options it changed back, so other specs see the defaults.
import type { APIRequestContext } from "@playwright/test";
import { test, expect, shot, toast, type Page } from "./support";
import { E2E_BASE_URL, ROOT_STATE } from "./env";

test.use({ storageState: ROOT_STATE });

type Root = { options(): Promise<Record<string, string>>; set(key: string, value: string): Promise<void>; dispose(): Promise<void> };

async function rootApi(request: { newContext: (o: object) => Promise<APIRequestContext> }): Promise<Root> {
  const api = await request.newContext({ baseURL: E2E_BASE_URL, storageState: ROOT_STATE, extraHTTPHeaders: { "New-Api-User": "1" } });
  return {
    async options() {
      const body = await (await api.get("/api/option/")).json();
      expect(body.success).toBe(true);
      return Object.fromEntries((body.data as { key: string; value: string }[]).map((o) => [o.key, o.value]));
    },
    async set(key, value) {
      const body = await (await api.put("/api/option/", { data: { key, value } })).json();
      expect(body.success, body.message).toBe(true);
    },
    dispose: () => api.dispose(),
  };
}

const KEYS = [
  "CheckSensitiveEnabled",
  "CheckSensitiveOnPromptEnabled",
  "SensitiveWords",
  "ModelPrice",
  "ModelRatio",
  "CompletionRatio",
  "GroupRatio",
  "UserUsableGroups",
  "TopupGroupRatio",
];

let root: Root;
let original: Record<string, string>;

test.beforeEach(async ({ playwright }) => {
  root = await rootApi(playwright.request);
  original = await root.options();
});

test.afterEach(async () => {
  const now = await root.options();
  for (const key of KEYS) if (now[key] !== original[key]) await root.set(key, original[key]!);
  await root.dispose();
});

const section = (page: Page, title: string) => page.getByRole("region", { name: title });
const editor = (page: Page, label: string) => section(page, "倍率设置").getByRole("textbox", { name: label, exact: true });

async function openTab(page: Page) {
  await page.goto("/setting?tab=operation");
  await expect(page.getByRole("tab", { name: "运营设置" })).toHaveAttribute("aria-selected", "true");
}

test("sensitive words: switches and list are saved and kept after a reload", async ({ page }) => {
  await openTab(page);
  const card = section(page, "屏蔽词过滤设置");
  await expect(card.getByRole("switch", { name: "启用屏蔽词过滤功能" })).toBeChecked();
  const list = card.getByRole("textbox", { name: "屏蔽词列表" });
  await expect(list).toHaveValue("test_sensitive");
  await list.fill("违禁词\nForbidden Fruit");
  await card.getByRole("switch", { name: "启用 Prompt 检查" }).uncheck();
  await card.getByRole("button", { name: "保存屏蔽词过滤设置" }).click();
  await expect(toast(page, "屏蔽词过滤设置已保存")).toBeVisible();

  await page.reload();
  await expect(list).toHaveValue("违禁词\nForbidden Fruit");
  await expect(card.getByRole("switch", { name: "启用 Prompt 检查" })).not.toBeChecked();
  const saved = await root.options();
  expect(saved.SensitiveWords).toBe("违禁词\nForbidden Fruit");
  expect(saved.CheckSensitiveOnPromptEnabled).toBe("false");
});

test("JSON editors: a change is saved and kept; text that is not JSON is refused with the spec's message", async ({ page }) => {
  await openTab(page);
  const group = editor(page, "分组倍率");
  await group.fill(JSON.stringify({ default: 1, vip: 1, svip: 1, e2e: 2.5 }, null, 2));
  await page.getByRole("button", { name: "保存倍率设置" }).click();
  await expect(toast(page, "倍率设置已保存")).toBeVisible();
  await page.reload();
  await expect(group).toHaveValue(/"e2e": 2\.5/);
  expect(JSON.parse((await root.options()).GroupRatio!)).toEqual({ default: 1, vip: 1, svip: 1, e2e: 2.5 });

  const completion = editor(page, "模型补全倍率");
  const before = (await root.options()).CompletionRatio;
  await completion.fill('{"gpt-4o": 2,');
  await page.getByRole("button", { name: "保存倍率设置" }).click();
  await expect(section(page, "倍率设置").getByText("不是合法的 JSON 字符串", { exact: true })).toBeVisible();
  await expect(toast(page, "模型补全倍率不是合法的 JSON 字符串")).toBeVisible();
  await shot(page, "settings-ratios-invalid");
  expect((await root.options()).CompletionRatio).toBe(before);
  await page.reload();
  await expect(completion).not.toHaveValue('{"gpt-4o": 2,');

  // The server's own checks still apply (a negative ratio), and nothing is saved.
  // (Right after the reload the page may still be hydrating: fill until the field holds the text.)
  const topup = editor(page, "充值分组倍率");
  await expect(async () => {
    await topup.fill('{"default": -1}');
    await expect(topup).toHaveValue('{"default": -1}', { timeout: 1000 });
  }).toPass();
  await page.getByRole("button", { name: "保存倍率设置" }).click();
  await expect(toast(page, /充值分组倍率不能为负数/)).toBeVisible();
  expect(JSON.parse((await root.options()).TopupGroupRatio!)).toEqual(JSON.parse(original.TopupGroupRatio!));
});

test("table view: rows added, edited and deleted write the same JSON", async ({ page }) => {
  await openTab(page);
  const card = section(page, "倍率设置");
  await card.getByText("表格编辑", { exact: true }).click();
  await card.getByRole("combobox", { name: "要编辑的设置" }).click();
  await page.getByRole("option", { name: "充值分组倍率", exact: true }).click();
  await expect(card.getByRole("button", { name: "删除 svip" })).toBeVisible();
  await card.getByRole("button", { name: "删除 svip" }).click();
  await card.getByRole("button", { name: "添加一行" }).click();
  await card.getByRole("textbox", { name: "分组", exact: true }).first().fill("e2e-topup");
  const ratio = card.getByRole("textbox", { name: "倍率", exact: true }).first();
  await ratio.fill("0.8");
  await shot(page, "settings-ratios-table");
  await card.getByText("JSON 编辑", { exact: true }).click();
  const topup = editor(page, "充值分组倍率");
  expect(JSON.parse(await topup.inputValue())).toEqual({ "e2e-topup": 0.8, default: 1, vip: 1 });

  await card.getByText("表格编辑", { exact: true }).click();
  await card.getByRole("combobox", { name: "要编辑的设置" }).click();
  await page.getByRole("option", { name: "用户可选分组", exact: true }).click();
  await card.getByRole("textbox", { name: "描述", exact: true }).nth(1).fill("VIP 专享");
  await page.getByRole("button", { name: "保存倍率设置" }).click();
  await expect(toast(page, "倍率设置已保存")).toBeVisible();

  const saved = await root.options();
  expect(JSON.parse(saved.TopupGroupRatio!)).toEqual({ "e2e-topup": 0.8, default: 1, vip: 1 });
  expect(JSON.parse(saved.UserUsableGroups!)).toEqual({ default: "默认分组", vip: "VIP 专享" });
  await page.reload();
  await expect(editor(page, "用户可选分组")).toHaveValue(/"vip": "VIP 专享"/);
});

test("reset model ratios asks first, then puts the defaults back", async ({ page }) => {
  await root.set("ModelRatio", JSON.stringify({ "only-model": 1 }));
  await openTab(page);
  const ratios = editor(page, "模型倍率");
  await expect(ratios).toHaveValue(/only-model/);
  await page.getByRole("button", { name: "重置模型倍率" }).click();
  const dialog = page.getByRole("dialog", { name: "重置模型倍率" });
  await dialog.getByRole("button", { name: "取消" }).click();
  await expect(dialog).toBeHidden();
  expect((await root.options()).ModelRatio).toBe(JSON.stringify({ "only-model": 1 }));

  await page.getByRole("button", { name: "重置模型倍率" }).click();
  await dialog.getByRole("button", { name: "重置", exact: true }).click();
  await expect(toast(page, "重置模型倍率成功")).toBeVisible();
  await expect(ratios).toHaveValue(/"gpt-4o":/);
  expect(JSON.parse((await root.options()).ModelRatio!)).toHaveProperty("gpt-4o");
  await page.reload();
  await expect(ratios).not.toHaveValue(/only-model/);
});

test("looks: light, dark and a 390 px phone", async ({ page }) => {
  await openTab(page);
  await shot(page, "settings-operation-light");
  await page.getByRole("button", { name: "切换明暗主题", exact: true }).click();
  await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
  await shot(page, "settings-operation-dark");
  await section(page, "倍率设置").getByText("表格编辑", { exact: true }).click();
  await shot(page, "settings-ratios-table-dark");
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, "settings-ratios-table-narrow");
  await section(page, "倍率设置").getByText("JSON 编辑", { exact: true }).click();
  await shot(page, "settings-operation-narrow");
  await page.getByRole("button", { name: "切换明暗主题", exact: true }).click();
});
