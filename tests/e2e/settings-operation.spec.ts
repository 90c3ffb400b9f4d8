// The operation tab of the settings (spec §2 Settings → operation, §5 Options, §9) through the real
// console as root: sections saved and kept after a reload, the menu following them (绘图 once drawing is on), the
// Chats JSON check and the menu using the list, the log cleanup and its count. Every option
// changed here is put back. Screenshots in light, dark and at 390 px.
import path from "node:path";
import Database from "better-sqlite3";
import type { APIRequestContext } from "@playwright/test";
import { E2E_BASE_URL, ROOT_STATE } from "./env";
import { expect, expectFits, type Page, shot, sideMenu, test, toast } from "./support";

test.use({ storageState: ROOT_STATE });
// Long flows on a shared two-core machine.
test.setTimeout(180_000);

const card = (page: Page, name: string) => page.getByRole("region", { name });

async function rootApi(playwright: { request: { newContext: (o: object) => Promise<APIRequestContext> } }) {
  const api = await playwright.request.newContext({
    baseURL: E2E_BASE_URL,
    storageState: ROOT_STATE,
    extraHTTPHeaders: { "New-Api-User": "1" },
  });
  const options = async () => {
    const body = await (await api.get("/api/option/")).json();
    return new Map((body.data as Array<{ key: string; value: string }>).map((o) => [o.key, o.value]));
  };
  const put = async (key: string, value: string) => {
    const body = await (await api.put("/api/option/", { data: { key, value } })).json();
    expect(body.success, `${key}: ${body.message}`).toBe(true);
  };
  return { options, put, dispose: () => api.dispose() };
}

test("general, drawing, data dashboard, monitoring and quota settings are saved and kept; the menu follows them", async ({
  page,
  playwright,
}) => {
  const api = await rootApi(playwright);
  const before = await api.options();
  try {
    await page.goto("/setting?tab=operation");
    await expect(page.getByRole("tab", { name: "运营设置" })).toHaveAttribute("aria-selected", "true");
    // DrawingEnabled is off by default: no 绘图 in the menu.
    await expect(sideMenu(page).getByRole("link", { name: "绘图" })).toHaveCount(0);

    const general = card(page, "通用设置");
    await general.getByLabel("充值链接").fill("https://shop.e2e.example/buy");
    await general.getByLabel("默认聊天页面链接").fill("https://chat.e2e.example");
    await general.getByLabel("失败重试次数").fill("2");
    await general.getByRole("button", { name: "保存通用设置" }).click();
    await expect(toast(page, "保存成功")).toBeVisible();

    const drawing = card(page, "绘图设置");
    await drawing.getByRole("switch", { name: "启用绘图功能" }).check();
    await drawing.getByRole("button", { name: "保存绘图设置" }).click();
    await expect(toast(page, "保存成功").first()).toBeVisible();
    await expect(sideMenu(page).getByRole("link", { name: "绘图" })).toBeVisible();

    // Data dashboard: the interval is at least one minute, and nothing is sent before it is.
    const dashboard = card(page, "数据看板设置");
    await dashboard.getByLabel("数据看板更新间隔").fill("0");
    await dashboard.getByRole("button", { name: "保存数据看板设置" }).click();
    await expect(dashboard.getByText("数据看板更新间隔不能小于 1 分钟")).toBeVisible();
    await dashboard.getByLabel("数据看板更新间隔").fill("7");
    await dashboard.getByRole("button", { name: "保存数据看板设置" }).click();
    await expect(dashboard.getByText("数据看板更新间隔不能小于 1 分钟")).toHaveCount(0);

    const monitoring = card(page, "监控设置");
    await monitoring.getByLabel("定时测试所有通道").fill("45");
    await monitoring.getByLabel("额度提醒阈值").fill("2500");
    await monitoring.getByRole("button", { name: "保存监控设置" }).click();

    const quota = card(page, "额度设置");
    await quota.getByLabel("新用户初始额度").fill("1234");
    await quota.getByRole("button", { name: "保存额度设置" }).click();
    await expect.poll(async () => (await api.options()).get("QuotaForNewUser")).toBe("1234");

    // Saving nothing new says so.
    await quota.getByRole("button", { name: "保存额度设置" }).click();
    await expect(toast(page, "你似乎并没有修改什么")).toBeVisible();

    await page.reload();
    await expect(card(page, "通用设置").getByLabel("充值链接")).toHaveValue("https://shop.e2e.example/buy");
    await expect(card(page, "通用设置").getByLabel("失败重试次数")).toHaveValue("2");
    await expect(card(page, "绘图设置").getByRole("switch", { name: "启用绘图功能" })).toBeChecked();
    await expect(card(page, "数据看板设置").getByLabel("数据看板更新间隔")).toHaveValue("7 分钟");
    await expect(card(page, "监控设置").getByLabel("定时测试所有通道")).toHaveValue("45 分钟");
    await expect(card(page, "监控设置").getByLabel("额度提醒阈值")).toHaveValue("2500");
    await expect(card(page, "额度设置").getByLabel("新用户初始额度")).toHaveValue("1234");
    await expect(sideMenu(page).getByRole("link", { name: "绘图" })).toBeVisible();
    const saved = await api.options();
    expect(saved.get("DrawingEnabled")).toBe("true");
    expect(saved.get("DataExportInterval")).toBe("7");
    expect(saved.get("ChannelTestInterval")).toBe("45");

    await shot(page, "settings-operation");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    await shot(page, "settings-operation-dark");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(card(page, "通用设置")).toBeVisible();
    await expectFits(page, 390);
    await shot(page, "settings-operation-390");
  } finally {
    for (const key of [
      "TopUpLink",
      "ChatLink",
      "RetryTimes",
      "DrawingEnabled",
      "DataExportInterval",
      "ChannelTestInterval",
      "QuotaRemindThreshold",
      "QuotaForNewUser",
    ]) {
      await api.put(key, before.get(key) ?? "");
    }
    await api.dispose();
  }
});

test("Chats: invalid JSON is refused with the spec's text; a valid list feeds the menu", async ({ page, playwright }) => {
  const api = await rootApi(playwright);
  const before = (await api.options()).get("Chats")!;
  try {
    await page.goto("/setting?tab=operation");
    const chats = card(page, "聊天设置");
    const field = chats.getByRole("textbox", { name: "聊天配置" });
    await field.fill('[{"坏的": ');
    await chats.getByRole("button", { name: "保存聊天设置" }).click();
    await expect(chats.getByText("不是合法的 JSON 字符串")).toBeVisible();
    expect((await api.options()).get("Chats")).toBe(before);

    await field.fill('{"E2E聊天": "https://chat.e2e.example/?k={key}"}');
    await chats.getByRole("button", { name: "保存聊天设置" }).click();
    await expect(chats.getByText('聊天配置应为 JSON 数组，每一项形如 {"名称": "链接"}')).toBeVisible();

    const list = '[{"E2E聊天": "https://chat.e2e.example/?k={key}&a={address}"}]';
    await field.fill(list);
    await chats.getByRole("button", { name: "保存聊天设置" }).click();
    await expect(toast(page, "保存成功")).toBeVisible();
    await page.reload();
    await expect(card(page, "聊天设置").getByRole("textbox", { name: "聊天配置" })).toHaveValue(list);
    await sideMenu(page).getByText("聊天", { exact: true }).click();
    await expect(sideMenu(page).getByRole("link", { name: "E2E聊天" })).toHaveAttribute("href", "/chat/0");

    // The frame itself (key and address filled in, no enabled token) is tests/e2e/chat.spec.ts's.
  } finally {
    await api.put("Chats", before);
    await api.dispose();
  }
});

test("request limits (速率限制设置) are saved and checked; the Midjourney switches are live", async ({ page, playwright }) => {
  const api = await rootApi(playwright);
  const keys = [
    "ModelRequestRateLimitEnabled",
    "ModelRequestRateLimitDurationMinutes",
    "ModelRequestRateLimitCount",
    "ModelRequestRateLimitSuccessCount",
    "ModelRequestRateLimitGroup",
  ];
  const before = await api.options();
  try {
    await page.goto("/setting?tab=operation");
    const limits = card(page, "速率限制设置");
    await limits.getByLabel("用户每周期最多请求次数").fill("30");
    await limits.getByRole("switch", { name: "启用用户模型请求速率限制" }).check();
    const groups = limits.getByRole("textbox", { name: "分组速率限制" });
    await groups.fill('{"vip": [10, 0]}');
    await limits.getByRole("button", { name: "保存速率限制设置" }).click();
    await expect(limits.getByText(/分组速率限制应为 JSON 对象/)).toBeVisible();
    expect((await api.options()).get("ModelRequestRateLimitEnabled")).toBe("false");

    await groups.fill('{"vip": [0, 1000]}');
    await limits.getByRole("button", { name: "保存速率限制设置" }).click();
    await expect(toast(page, "保存成功")).toBeVisible();
    await expect.poll(async () => (await api.options()).get("ModelRequestRateLimitGroup")).toBe('{"vip": [0, 1000]}');
    const saved = await api.options();
    expect(saved.get("ModelRequestRateLimitEnabled")).toBe("true");
    expect(saved.get("ModelRequestRateLimitCount")).toBe("30");

    const drawing = card(page, "绘图设置");
    for (const name of ["允许 AccountFilter 参数", "开启之后将上游地址替换为服务器地址", "启用异步任务功能"]) {
      await expect(drawing.getByRole("switch", { name })).toBeEnabled();
    }
    await expect(drawing.getByRole("switch", { name: "开启之后将上游地址替换为服务器地址" })).toBeChecked();
    await expect(drawing.getByText("尚未开放")).toHaveCount(0);
    await limits.scrollIntoViewIfNeeded();
    await limits.screenshot({ path: "test-results/screenshots/settings-operation-rate-limit.png" });
    await page.setViewportSize({ width: 390, height: 844 });
    await limits.screenshot({ path: "test-results/screenshots/settings-operation-rate-limit-390.png" });
  } finally {
    for (const key of keys) await api.put(key, before.get(key) ?? "");
    await api.dispose();
  }
});

test("log cleanup needs a time and reports how many rows it deleted", async ({ page }) => {
  // Rows from 2001, older than anything the other specs write.
  const db = new Database(path.join(process.env.QIAO_E2E_DATA_DIR!, "qiao.db"));
  try {
    const insert = db.prepare("INSERT INTO logs (user_id, created_at, type, content, username) VALUES (1, ?, 2, 'e2e old row', 'root')");
    for (let i = 0; i < 3; i++) insert.run(1_000_000_000 + i);
  } finally {
    db.close();
  }
  await page.goto("/setting?tab=operation");
  const logs = card(page, "日志设置");
  const time = logs.getByLabel("日志清理时间");
  // The default: one month ago.
  const monthAgo = new Date();
  monthAgo.setMonth(monthAgo.getMonth() - 1);
  await expect(time).toHaveValue(new RegExp(`^${monthAgo.getFullYear()}-${String(monthAgo.getMonth() + 1).padStart(2, "0")}-`));

  await time.fill("");
  await logs.getByRole("button", { name: "清除历史日志" }).click();
  await expect(logs.getByText("请选择清理日志的截止时间")).toBeVisible();

  await time.fill("2001-09-10T00:00");
  await logs.getByRole("button", { name: "清除历史日志" }).click();
  await page.getByRole("dialog", { name: "清除历史日志" }).getByRole("button", { name: "清除" }).click();
  await expect(toast(page, "3 条日志已清理！")).toBeVisible();
  await logs.getByRole("button", { name: "清除历史日志" }).click();
  await page.getByRole("dialog", { name: "清除历史日志" }).getByRole("button", { name: "清除" }).click();
  await expect(toast(page, "0 条日志已清理！")).toBeVisible();
});
