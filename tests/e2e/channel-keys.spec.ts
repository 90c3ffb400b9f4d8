// Multi-key channels in the console (issue 26) as root: create one with 多密钥模式 随机 and three
// keys, see its key count in the list and its keys masked in 密钥管理, disable and enable one,
// add keys in batch, and delete the key the relay disabled (a mock upstream on loopback refuses it).
// Screenshots in light, dark and at 390 px.
import { type OpenAIMock, startOpenAIMock } from "../mocks/openai-upstream";
import { ROOT_STATE } from "./env";
import { expect, expectFits, type Page, shot, test, toast } from "./support";

test.use({ storageState: ROOT_STATE });
test.describe.configure({ mode: "serial" });

const AS_ROOT = { "New-Api-User": "1" };
const uid = Date.now().toString(36);
const NAME = `mk${uid}`;
/** A model of this run's own, so relay calls reach this channel only. */
const MODEL = `mk-model-${uid}`;
const KEYS = [`mk-e2e-alpha-${uid}`, `mk-e2e-bravo-${uid}`, `mk-e2e-charlie-${uid}`];
const DEAD = `mk-e2e-dead-${uid}`;

const rejected = new Set([DEAD]);
let upstream: OpenAIMock;

test.beforeAll(async () => {
  upstream = await startOpenAIMock({ rejectedKeys: rejected });
});
test.afterAll(async () => {
  await upstream.close();
});

async function call(page: Page, method: "GET" | "POST" | "PUT", url: string, data?: unknown) {
  const res = await page.request.fetch(url, { method, data, headers: AS_ROOT });
  const body = await res.json();
  expect(body.success, `${method} ${url}: ${body.message}`).toBe(true);
  return body.data;
}

const keyRows = (page: Page) => page.getByTestId("channel-keys").locator("tbody tr");
const keyRow = (page: Page, n: number) => keyRows(page).filter({ has: page.getByRole("cell", { name: String(n), exact: true }) });

test("a multi-key channel: created, its keys masked, one disabled and enabled, keys added, the dead one deleted", async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto("/channel");
  await page.getByRole("link", { name: "添加渠道", exact: true }).click();
  await expect(page.getByRole("heading", { name: "创建新的渠道" })).toBeVisible();
  await page.getByRole("textbox", { name: "名称", exact: true }).fill(NAME);
  await page.getByRole("textbox", { name: "Base URL", exact: true }).fill(upstream.url);
  await page
    .locator("label")
    .filter({ hasText: /^随机$/ })
    .click();
  await expect(page.getByRole("radio", { name: "随机", exact: true })).toBeChecked();
  // One channel of many keys: batch creation is off the table.
  await expect(page.getByRole("switch", { name: /批量创建/ })).toHaveCount(0);
  await page.getByRole("textbox", { name: "密钥", exact: true }).fill(`${KEYS.join("\n")}\n\n`);
  await page.getByRole("textbox", { name: "自定义模型名称", exact: true }).fill(MODEL);
  await page.getByRole("button", { name: "填入", exact: true }).click();
  await shot(page, "channel-keys-create");
  await page.getByRole("button", { name: "提交", exact: true }).click();
  await expect(toast(page, "渠道创建成功！")).toBeVisible();
  await expect(page).toHaveURL(/\/channel$/);

  const found = await call(page, "GET", `/api/channel/search?keyword=${NAME}`);
  const id = found.items[0].id as number;
  await page.goto(`/channel?keyword=${NAME}`);
  await expect(page.getByTestId("channel-key-count")).toHaveText("3/3 密钥");

  await page.goto(`/channel/edit/${id}`);
  await expect(page.getByRole("radio", { name: "随机", exact: true })).toBeChecked();
  await expect(keyRows(page)).toHaveCount(3);
  await expect(keyRow(page, 1)).toContainText(/mk-e2…\w{2}/);
  const panel = await page.getByTestId("channel-keys").textContent();
  for (const key of KEYS) expect(panel ?? "").not.toContain(key);
  await shot(page, "channel-keys-panel");

  // Disable the second key, then enable it again.
  await keyRow(page, 2).getByRole("button", { name: "禁用", exact: true }).click();
  await expect(toast(page, "密钥已禁用")).toBeVisible();
  await expect(keyRow(page, 2).getByText("已禁用")).toBeVisible();
  await keyRow(page, 2).getByRole("button", { name: "启用", exact: true }).click();
  await expect(toast(page, "密钥已启用")).toBeVisible();
  await expect(keyRow(page, 2).getByText("已启用")).toBeVisible();

  // Batch add: a known key is skipped, the new ones appended.
  await page.getByRole("button", { name: "批量添加", exact: true }).click();
  await page.getByRole("dialog").getByRole("textbox", { name: "新密钥" }).fill(`${KEYS[0]}\n${DEAD}\n`);
  await page.getByRole("dialog").getByRole("button", { name: "添加", exact: true }).click();
  await expect(toast(page, "已添加 1 个密钥")).toBeVisible();
  await expect(keyRows(page)).toHaveCount(4);

  // The relay meets the dead key (the upstream refuses it): that key alone is auto-disabled.
  const ratios = JSON.parse(
    ((await call(page, "GET", "/api/option/")) as { key: string; value: string }[]).find((o) => o.key === "ModelRatio")?.value || "{}",
  );
  await call(page, "PUT", "/api/option/", { key: "ModelRatio", value: JSON.stringify({ ...ratios, [MODEL]: 1 }) });
  await call(page, "PUT", "/api/option/", { key: "AutomaticDisableChannelEnabled", value: "true" });
  const token = await call(page, "POST", "/api/token/", { name: `mk${uid}`, remain_quota: 0, unlimited_quota: true, expired_time: -1 });
  const key = String(token.key).startsWith("sk-") ? token.key : `sk-${token.key}`;
  await expect
    .poll(
      async () => {
        await page.request.post("/v1/chat/completions", {
          headers: { authorization: `Bearer ${key}` },
          data: { model: MODEL, messages: [{ role: "user", content: "hi" }] },
        });
        return upstream.requests.some((r) => r.headers.authorization === `Bearer ${DEAD}`);
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  await call(page, "PUT", "/api/option/", { key: "AutomaticDisableChannelEnabled", value: "false" });
  await page.reload();
  await expect(keyRow(page, 4).getByText("自动禁用")).toBeVisible();
  await keyRow(page, 4).getByText("自动禁用").hover();
  await expect(page.getByRole("tooltip")).toContainText("状态码 401");
  await expect(page.getByRole("tooltip")).not.toContainText(DEAD);
  await shot(page, "channel-keys-auto-disabled");

  await page.getByRole("button", { name: "删除自动禁用", exact: true }).click();
  await page.getByRole("dialog").getByRole("button", { name: "确定", exact: true }).click();
  await expect(toast(page, "已删除 1 个自动禁用的密钥")).toBeVisible();
  await expect(keyRows(page)).toHaveCount(3);

  await page.goto(`/channel?keyword=${NAME}`);
  await expect(page.getByTestId("channel-key-count")).toHaveText("3/3 密钥");
});

test("密钥管理 in dark mode and on a 390 px phone", async ({ page }) => {
  const found = await call(page, "GET", `/api/channel/search?keyword=${NAME}`);
  const id = found.items[0].id as number;
  await call(page, "POST", "/api/channel/multi_key/manage", { channel_id: id, action: "disable_key", key_index: 0 });
  await page.goto(`/channel?keyword=${NAME}`);
  await page.getByRole("button", { name: "切换明暗主题", exact: true }).click();
  await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
  await expect(page.getByTestId("channel-key-count")).toHaveText("2/3 密钥");
  await shot(page, "channel-keys-list-dark");
  await page.goto(`/channel/edit/${id}`);
  await expect(keyRows(page)).toHaveCount(3);
  await shot(page, "channel-keys-panel-dark");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(keyRows(page)).toHaveCount(3);
  await expectFits(page, 390);
  await page.getByTestId("channel-keys").scrollIntoViewIfNeeded();
  await shot(page, "channel-keys-panel-390");
  await page.goto(`/channel?keyword=${NAME}`);
  await expect(page.getByTestId("channel-key-count")).toBeVisible();
  await expectFits(page, 390);
  await shot(page, "channel-keys-list-390");
  // Back to the light theme for the specs after this one.
  await page.getByRole("button", { name: "切换明暗主题", exact: true }).click();
});
