// The playground (spec §2 Playground, §4 Playground message, §5, §7, §8, §9) driven through the
// real console: replies stream from a mock OpenAI upstream through the real relay
// (POST /pg/chat/completions) and are billed to the user. The user sits in a group of its own, so
// its models (gpt-4o-mini among them) are known; the vip group gets one more model. Screenshots in
// light, dark and at 390 px.
import type { APIRequestContext } from "@playwright/test";
import type { OpenAIMock } from "../mocks/openai-upstream";
import { E2E_BASE_URL, ROOT_STATE } from "./env";
import { clipboardText, expect, expectFits, loginViaUi, type Page, shot, test, toast, uniqueName } from "./support";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

const prefix = uniqueName("e2epg");
const OWN_GROUP = prefix;
/** In the user's own group, beside gpt-4o-mini; model ratio 1. */
const ALPHA = `${prefix}-alpha`;
/** Only in the vip group; model ratio 1. */
const BETA = `${prefix}-beta`;
const USERNAME = uniqueName("pg");
const PASSWORD = "password-123";
const SYSTEM_PROMPT = "You are a helpful assistant. You can help me by answering my questions. You can also ask me questions.";

const MARKDOWN_REPLY = [
  "## 结果",
  "",
  "这是 **加粗** 与 `inline` 文本：",
  "",
  "- 第一项",
  "- 第二项",
  "",
  "```python",
  "def greet(name):",
  '    return f"你好，{name}"',
  "```",
  "",
  "完毕。",
].join("\n");
const CODE_TEXT = 'def greet(name):\n    return f"你好，{name}"';

let root: APIRequestContext;
let upstream: OpenAIMock;
let userId = 0;
const channelIds: number[] = [];
const saved = new Map<string, string>();

async function call<T = unknown>(method: string, url: string, data?: unknown): Promise<T> {
  const res = await root.fetch(url, { method, data });
  const body = await res.json();
  expect(body.success, `${method} ${url}: ${body.message}`).toBe(true);
  return body.data as T;
}

async function addToMap(key: string, entries: Record<string, unknown>) {
  const options = await call<Array<{ key: string; value: string }>>("GET", "/api/option/");
  const current = options.find((o) => o.key === key)?.value ?? "{}";
  if (!saved.has(key)) saved.set(key, current);
  await call("PUT", "/api/option/", { key, value: JSON.stringify({ ...JSON.parse(current), ...entries }) });
}

test.beforeAll(async ({ playwright }) => {
  const { startOpenAIMock } = await import("../mocks/openai-upstream");
  upstream = await startOpenAIMock({ apiKey: "sk-pg-upstream" });
  root = await playwright.request.newContext({
    baseURL: E2E_BASE_URL,
    storageState: ROOT_STATE,
    extraHTTPHeaders: { "New-Api-User": "1" },
  });
  for (const [name, models, group] of [
    [`${prefix}-own`, `gpt-4o-mini,${ALPHA}`, OWN_GROUP],
    [`${prefix}-vip`, BETA, "vip"],
  ]) {
    const created = await call<Array<{ id: number }>>("POST", "/api/channel/", {
      type: 1,
      name,
      key: "sk-pg-upstream",
      base_url: upstream.url,
      models,
      group,
    });
    channelIds.push(created[0].id);
  }
  await addToMap("ModelRatio", { [ALPHA]: 1, [BETA]: 1 });
  await addToMap("CompletionRatio", { [ALPHA]: 1, [BETA]: 1 });
  await call("POST", "/api/user/", { username: USERNAME, password: PASSWORD });
  const found = await call<{ items: Array<{ id: number }> }>("GET", `/api/user/search?keyword=${USERNAME}`);
  userId = found.items[0].id;
  await call("PUT", "/api/user/", { id: userId, group: OWN_GROUP, quota: 5_000_000 });
});

test.afterAll(async () => {
  for (const [key, value] of saved) await call("PUT", "/api/option/", { key, value });
  for (const id of channelIds) await call("DELETE", `/api/channel/${id}`);
  await root.dispose();
  await upstream.close();
});

test.beforeEach(() => upstream.reset());

async function openPlayground(page: Page) {
  await loginViaUi(page, USERNAME, PASSWORD);
  await page.goto("/playground");
  await expect(page.getByRole("heading", { name: "操练场" })).toBeVisible();
}

const conversation = (page: Page) => page.getByRole("region", { name: "对话" });
const replies = (page: Page) => conversation(page).locator('[data-role="assistant"]');
const lastReply = (page: Page) => replies(page).last();

async function say(page: Page, text: string) {
  await page.getByRole("textbox", { name: "消息" }).fill(text);
  await page.getByRole("textbox", { name: "消息" }).press("Enter");
}

/** The JSON bodies the upstream received for chat completions. */
const chatRequests = () => upstream.requests.filter((r) => r.kind === "chat").map((r) => r.json as Record<string, unknown>);

type LogRow = {
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  model_name: string;
  token_name: string;
  other: string | Record<string, unknown>;
};

/** The user's own log rows of one model, through the user's own API (the page's session). */
async function logRows(page: Page, model: string): Promise<LogRow[]> {
  const res = await page.request.get(`/api/log/self/?type=2&model_name=${encodeURIComponent(model)}&page_size=100`, {
    headers: { "New-Api-User": String(userId) },
  });
  const body = await res.json();
  expect(body.success, body.message).toBe(true);
  return body.data.items as LogRow[];
}

const otherOf = (row: LogRow) => (typeof row.other === "string" ? (JSON.parse(row.other || "{}") as Record<string, unknown>) : row.other);

test("streams a Markdown reply with the default model and prompt, copies code, and bills the user", async ({ page }) => {
  await openPlayground(page);
  // Spec §9 defaults: the user's own group, gpt-4o-mini, the helpful-assistant prompt.
  const settings = page.getByRole("region", { name: "设置" });
  await expect(settings.getByRole("combobox", { name: "分组" })).toHaveValue(`用户分组（${OWN_GROUP}）`);
  await expect(settings.getByRole("combobox", { name: "模型" })).toHaveValue("gpt-4o-mini");
  await expect(settings.getByRole("textbox", { name: "系统提示词（System Prompt）" })).toHaveValue(SYSTEM_PROMPT);
  await expect(settings.getByRole("slider", { name: "温度" })).toHaveAttribute("aria-valuenow", "0.7");
  await expect(page.getByText("开始一个新的对话")).toBeVisible();

  const before = await page.request.get("/api/user/self", { headers: { "New-Api-User": String(userId) } }).then((r) => r.json());
  upstream.setBehaviour({ content: MARKDOWN_REPLY, chunkDelayMs: 50 });
  await say(page, "你好");
  await expect(conversation(page).locator('[data-role="user"]')).toHaveText("你好");
  await expect(lastReply(page)).toHaveAttribute("data-status", "complete");
  await expect(page.getByRole("button", { name: "发送" })).toBeVisible();

  // Markdown rendered: heading, bold, inline code, list, a code block with its language.
  const reply = lastReply(page);
  await expect(reply.getByRole("heading", { name: "结果" })).toBeVisible();
  await expect(reply.locator("strong")).toHaveText("加粗");
  await expect(reply.locator("p code")).toHaveText("inline");
  await expect(reply.getByRole("listitem")).toHaveText(["第一项", "第二项"]);
  const codeBlock = reply.locator("[data-code-block]");
  await expect(codeBlock).toContainText("python");
  await expect(codeBlock.locator("pre")).toHaveText(CODE_TEXT);
  await codeBlock.getByRole("button", { name: "复制代码" }).click();
  await expect(toast(page, "已复制到剪贴板！").first()).toBeVisible();
  expect(await clipboardText(page)).toBe(CODE_TEXT);
  await reply.getByRole("button", { name: "复制回复" }).click();
  await expect.poll(() => clipboardText(page)).toBe(MARKDOWN_REPLY);

  // What went upstream (spec §7 body): system prompt, the message, stream, model, temperature.
  const sent = chatRequests();
  expect(sent).toHaveLength(1);
  expect(sent[0]).toMatchObject({
    model: "gpt-4o-mini",
    stream: true,
    temperature: 0.7,
    messages: [
      { role: "system", content: SYSTEM_PROMPT },
      { role: "user", content: "你好" },
    ],
  });
  expect(sent[0]).not.toHaveProperty("max_tokens");
  expect(sent[0]).not.toHaveProperty("group");

  // Billed: a log row named after the group, and the user's used quota grew by exactly its quota.
  let rows: LogRow[] = [];
  await expect.poll(async () => (rows = await logRows(page, "gpt-4o-mini")).length).toBe(1);
  expect(rows[0].token_name).toBe(`playground-${OWN_GROUP}`);
  expect(rows[0].completion_tokens).toBeGreaterThan(0);
  expect(rows[0].quota).toBeGreaterThan(0);
  await expect
    .poll(async () => {
      const self = await page.request.get("/api/user/self", { headers: { "New-Api-User": String(userId) } }).then((r) => r.json());
      return self.data.used_quota - before.data.used_quota;
    })
    .toBe(rows[0].quota);
  await shot(page, "playground-light");
});

test("a reply's HTML never runs: scripts, handlers and javascript: links are dropped, code stays text", async ({ page }) => {
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await openPlayground(page);
  upstream.setBehaviour({
    content: [
      "危险内容测试：<script>window.__pgPwned = 1; alert('script')</script>",
      "",
      '<img src="x" onerror="window.__pgPwned = 2; alert(\'img\')">',
      "",
      "[点我](javascript:window.__pgPwned=3) 与 <a href=\"javascript:alert('a')\">链接</a>",
      "",
      '<iframe srcdoc="<script>parent.__pgPwned=4</script>"></iframe>',
      "",
      "```html",
      "<script>window.__pgPwned = 5</script>",
      "```",
    ].join("\n"),
    chunks: 7,
  });
  await say(page, "show me html");
  await expect(lastReply(page)).toHaveAttribute("data-status", "complete");
  const reply = lastReply(page);
  await expect(reply).toContainText("危险内容测试：");
  // The fenced code is shown as text, exactly.
  await expect(reply.locator("[data-code-block] pre")).toHaveText("<script>window.__pgPwned = 5</script>");
  // Nothing executable reached the DOM, and nothing ran.
  expect(await reply.locator("script, iframe").count()).toBe(0);
  expect(await reply.locator("[onerror]").count()).toBe(0);
  for (const href of await reply.locator("a").evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""))) {
    expect(href).not.toMatch(/javascript:/i);
  }
  await page.waitForTimeout(300);
  expect(await page.evaluate(() => (window as unknown as { __pgPwned?: number }).__pgPwned)).toBeUndefined();
  expect(dialogs).toEqual([]);
});

test("group, model, temperature, max tokens and system prompt go into the request; the conversation carries on", async ({ page }) => {
  await openPlayground(page);
  const settings = page.getByRole("region", { name: "设置" });
  // The user's own group offers its two models.
  await settings.getByRole("combobox", { name: "模型" }).click();
  await expect(page.getByRole("option")).toHaveText(["gpt-4o-mini", ALPHA].sort());
  await page.getByRole("option", { name: ALPHA }).click();
  await expect(settings.getByRole("combobox", { name: "模型" })).toHaveValue(ALPHA);

  // The vip group has only BETA: the model follows the group.
  await settings.getByRole("combobox", { name: "分组" }).click();
  await page.getByRole("option", { name: "vip分组（vip）" }).click();
  await expect(settings.getByRole("combobox", { name: "模型" })).toHaveValue(BETA);

  // Temperature: 0.1 to 1 in steps of 0.1 (spec §5).
  const slider = settings.getByRole("slider", { name: "温度" });
  await slider.focus();
  await page.keyboard.press("Home");
  await expect(slider).toHaveAttribute("aria-valuenow", "0.1");
  await page.keyboard.press("End");
  await expect(slider).toHaveAttribute("aria-valuenow", "1");
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("ArrowLeft");
  await expect(slider).toHaveAttribute("aria-valuenow", "0.8");
  await expect(settings.getByText("温度（temperature）：0.8")).toBeVisible();
  await settings.getByRole("textbox", { name: "最大 Tokens（max_tokens）" }).fill("64");
  await settings.getByRole("textbox", { name: "系统提示词（System Prompt）" }).fill("你是一只猫。");

  upstream.setBehaviour({ content: "喵。" });
  await say(page, "你是谁？");
  await expect(lastReply(page)).toHaveAttribute("data-status", "complete");
  await expect(lastReply(page)).toContainText("喵。");
  upstream.setBehaviour({ content: "还是喵。" });
  await say(page, "再说一次");
  await expect(replies(page)).toHaveCount(2);
  await expect(lastReply(page)).toHaveAttribute("data-status", "complete");
  await expect(lastReply(page)).toContainText("还是喵。");

  const sent = chatRequests();
  expect(sent).toHaveLength(2);
  expect(sent[1]).toMatchObject({
    model: BETA,
    temperature: 0.8,
    max_tokens: 64,
    messages: [
      { role: "system", content: "你是一只猫。" },
      { role: "user", content: "你是谁？" },
      { role: "assistant", content: "喵。" },
      { role: "user", content: "再说一次" },
    ],
  });
  // Relayed in the vip group, and billed by the model's ratio (1 × prompt + 1 × completion).
  let rows: LogRow[] = [];
  await expect.poll(async () => (rows = await logRows(page, BETA)).length).toBe(2);
  for (const row of rows) {
    expect(row.token_name).toBe("playground-vip");
    expect(row.quota).toBe(row.prompt_tokens + row.completion_tokens);
  }
});

test("stop keeps what arrived and bills it; clear empties the conversation", async ({ page }) => {
  await openPlayground(page);
  const words = Array.from({ length: 40 }, (_, i) => `词${i}`);
  upstream.setBehaviour({ content: words.join(" "), chunkDelayMs: 250 });
  await say(page, "慢慢说");
  // While chunks arrive the reply is incomplete, grows, and the send button is the stop button.
  await expect(lastReply(page)).toContainText("词2");
  await expect(lastReply(page)).toHaveAttribute("data-status", "incomplete");
  await expect(page.getByRole("button", { name: "发送" })).toHaveCount(0);
  await page.getByRole("button", { name: "停止" }).click();
  await expect(lastReply(page)).toHaveAttribute("data-status", "complete");
  const kept = ((await lastReply(page).textContent()) ?? "").trim();
  expect(kept).toContain("词0");
  expect(kept).not.toContain("词39");
  // Nothing more arrives after stop.
  await page.waitForTimeout(800);
  expect(((await lastReply(page).textContent()) ?? "").trim()).toBe(kept);
  await expect(page.getByRole("button", { name: "发送" })).toBeVisible();

  // The relay cancelled upstream and billed what was produced.
  await expect
    .poll(async () => (await logRows(page, "gpt-4o-mini")).filter((r) => otherOf(r).client_gone === true).length)
    .toBeGreaterThanOrEqual(1);
  const gone = (await logRows(page, "gpt-4o-mini")).find((r) => otherOf(r).client_gone === true);
  expect(gone?.quota).toBeGreaterThan(0);

  await page.getByRole("button", { name: "清空对话" }).click();
  await expect(page.getByText("开始一个新的对话")).toBeVisible();
  await expect(conversation(page).getByRole("article")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "清空对话" })).toBeDisabled();

  // Clear in the middle of a reply stops it too.
  upstream.setBehaviour({ content: words.join(" "), chunkDelayMs: 250 });
  await say(page, "再来");
  await expect(lastReply(page)).toHaveAttribute("data-status", "incomplete");
  await page.getByRole("button", { name: "清空对话" }).click();
  await expect(conversation(page).getByRole("article")).toHaveCount(0);
  await page.waitForTimeout(600);
  await expect(conversation(page).getByRole("article")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "发送" })).toBeVisible();
});

test("errors are appended to the reply: mid-stream, refused, and an expired session", async ({ page }) => {
  await openPlayground(page);
  // An upstream failure after two chunks: the text so far stays, the error data follows.
  upstream.setBehaviour({ content: "one two three four", errorAfterChunks: 2 });
  await say(page, "出错吧");
  await expect(lastReply(page)).toHaveAttribute("data-status", "error");
  await expect(lastReply(page)).toContainText("one two");
  await expect(lastReply(page).getByRole("alert")).toContainText("The server had an error while processing your request");

  // Refused before streaming: the relay's error message.
  upstream.setBehaviour({ failStatus: 400, failError: { message: "mock refused: context too long" } });
  await say(page, "再试");
  await expect(replies(page)).toHaveCount(2);
  await expect(lastReply(page)).toHaveAttribute("data-status", "error");
  // The relay adds its request id, for a report to the admin.
  await expect(lastReply(page).getByRole("alert")).toContainText(/^mock refused: context too long \(request id: \w+\)$/);
  // Failed replies are not sent back as the assistant's words.
  upstream.setBehaviour({ content: "好的" });
  await say(page, "第三次");
  await expect(lastReply(page)).toHaveAttribute("data-status", "complete");
  const last = chatRequests().at(-1) as { messages: Array<{ role: string }> };
  expect(last.messages.map((m) => m.role)).toEqual(["system", "user", "user", "user"]);
  await shot(page, "playground-errors");

  // The session ends (cookie gone): spec §6's text, then the login page.
  const upstreamCalls = upstream.requests.length;
  await page.context().clearCookies();
  await say(page, "还在吗");
  await expect(lastReply(page)).toHaveAttribute("data-status", "error");
  await expect(lastReply(page).getByRole("alert")).toHaveText("未登录或登录已过期，请重新登录！");
  await expect(page).toHaveURL(/\/login\?expired=true$/);
  await expect(page.getByTestId("expired-notice")).toHaveText("未登录或登录已过期，请重新登录！");
  expect(upstream.requests.length).toBe(upstreamCalls);
});

test.describe("looks", () => {
  test("dark mode and a 390 px phone with the settings in a drawer", async ({ page }) => {
    await openPlayground(page);
    upstream.setBehaviour({ content: MARKDOWN_REPLY, chunks: 4 });
    await say(page, "给我一个例子");
    await expect(lastReply(page)).toHaveAttribute("data-status", "complete");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    await shot(page, "playground-dark");

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/playground");
    await expect(page.getByRole("region", { name: "设置" })).toBeHidden();
    await expect(page.getByText(`用户分组（${OWN_GROUP}） · gpt-4o-mini`)).toBeVisible();
    await page.getByRole("button", { name: "设置" }).click();
    const drawer = page.getByRole("dialog", { name: "设置" });
    await expect(drawer.getByRole("textbox", { name: "系统提示词（System Prompt）" })).toHaveValue(SYSTEM_PROMPT);
    await shot(page, "playground-narrow-dark-settings");
    await drawer.getByRole("combobox", { name: "模型" }).click();
    await page.getByRole("option", { name: ALPHA }).click();
    await page.keyboard.press("Escape");
    await expect(drawer).toBeHidden();
    await expect(page.getByText(`用户分组（${OWN_GROUP}） · ${ALPHA}`)).toBeVisible();
    await say(page, "手机上问一句");
    await expect(lastReply(page)).toHaveAttribute("data-status", "complete");
    expect((chatRequests().at(-1) as { model: string }).model).toBe(ALPHA);
    await expectFits(page, 390);
    await shot(page, "playground-narrow-dark");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "light");
    await shot(page, "playground-narrow");
  });
});
