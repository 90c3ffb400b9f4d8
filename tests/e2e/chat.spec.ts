// The chat frame /chat/{id} and /chat2link (spec §2 Chat frame, §8): the configured link filled in
// with the user's first enabled token, the side menu's chat entries, and every message of §8.
// The "chat client" is a page on loopback that shows the query it was given.
import { type APIRequestContext, request as playwrightRequest } from "@playwright/test";
import { E2E_BASE_URL, ROOT_STATE } from "./env";
import { type PageServer, startPageServer } from "./page-server";
import { expect, expectFits, newUserSession, optionValues, type Page, setOption, shot, sideMenu, test } from "./support";

const MSG = {
  noToken: "当前没有可用的启用令牌，请确认是否有令牌处于启用状态！",
  badConfig: "聊天链接配置错误，请联系管理员",
  none: "请联系管理员配置聊天链接",
};

let site: PageServer;
let root: APIRequestContext;
let saved: Record<string, string>;

test.beforeAll(async () => {
  site = await startPageServer("本地聊天客户端");
  root = await playwrightRequest.newContext({ baseURL: E2E_BASE_URL, storageState: ROOT_STATE });
  const options = await optionValues(root);
  saved = Object.fromEntries(["Chats", "ChatLink", "ChatLink2"].map((key) => [key, options.get(key) ?? ""]));
});

test.afterAll(async () => {
  for (const [key, value] of Object.entries(saved)) await setOption(root, key, value);
  await root.dispose();
  await site.close();
});

const userId = (page: Page) => page.evaluate(() => JSON.parse(localStorage.getItem("user") ?? "{}").id as number);

/** Creates a token through the API as the logged-in user; returns its id and whole key. */
async function createToken(page: Page, name: string, enabled = true): Promise<{ id: number; key: string }> {
  const headers = { "New-Api-User": String(await userId(page)) };
  const created = await (await page.request.post("/api/token/", { data: { name, unlimited_quota: true }, headers })).json();
  expect(created.success, JSON.stringify(created)).toBe(true);
  const id = created.data.id as number;
  if (!enabled) {
    const res = await (await page.request.put("/api/token/?status_only=true", { data: { id, status: 2 }, headers })).json();
    expect(res.success).toBe(true);
  }
  const full = await (await page.request.get(`/api/token/${id}`, { headers })).json();
  return { id, key: full.data.key as string };
}

const serverAddress = async (page: Page) => (await (await page.request.get("/api/status")).json()).data.server_address as string;

test("the frame embeds the chosen link with the first enabled token; the menu lists the links", async ({ page }) => {
  await setOption(
    root,
    "Chats",
    JSON.stringify([
      { 本地聊天: `${site.origin}/chat?key={key}&url={address}` },
      { OpenCat: "opencat://team/join?domain={address}&token={key}" },
      { 坏配置: "javascript:alert(1)//{key}" },
    ]),
  );
  await newUserSession(page, "chat");
  const first = await createToken(page, "first");
  // Newer, so listed first, but disabled: the frame skips it.
  await createToken(page, "second", false);
  expect(first.key).toMatch(/^sk-[A-Za-z0-9]{48}$/);

  // The side menu's 聊天 entry holds the configured links.
  await page.goto("/token");
  const menu = sideMenu(page);
  await menu.getByText("聊天", { exact: true }).click();
  for (const name of ["本地聊天", "OpenCat", "坏配置"]) await expect(menu.getByRole("link", { name, exact: true })).toBeVisible();
  await menu.getByRole("link", { name: "本地聊天", exact: true }).click();
  await expect(page).toHaveURL(/\/chat\/0$/);

  const frame = page.locator('iframe[title="本地聊天"]');
  await expect(frame).toHaveAttribute("sandbox", "allow-scripts allow-same-origin allow-forms allow-popups allow-downloads allow-modals");
  const inner = page.frameLocator('iframe[title="本地聊天"]');
  await expect(inner.getByRole("heading", { name: "本地聊天客户端" })).toBeVisible();
  await expect(inner.locator('[data-name="key"]')).toHaveText(`key=${first.key}`);
  await expect(inner.locator('[data-name="url"]')).toHaveText(`url=${await serverAddress(page)}`);
  await expect(menu.getByRole("link", { name: "本地聊天", exact: true })).toHaveAttribute("data-active", "true");
  await shot(page, "chat-frame");

  // /chat without an id is the first link.
  await page.goto("/chat");
  await expect(page.frameLocator('iframe[title="本地聊天"]').locator('[data-name="key"]')).toHaveText(`key=${first.key}`);

  // A client app's own scheme cannot be framed: the user opens it.
  await page.goto("/chat/1");
  const open = page.getByRole("link", { name: "在「OpenCat」中打开" });
  await expect(open).toHaveAttribute(
    "href",
    `opencat://team/join?domain=${encodeURIComponent(await serverAddress(page))}&token=${first.key}`,
  );

  // A script link and an id with no link are bad configuration; nothing is framed.
  for (const path of ["/chat/2", "/chat/9", "/chat/x"]) {
    await page.goto(path);
    await expect(page.getByText(MSG.badConfig)).toBeVisible();
    await expect(page.locator("iframe")).toHaveCount(0);
  }
  await shot(page, "chat-bad-config");
});

test("without an enabled token the frame says so and goes back to /token", async ({ page }) => {
  await setOption(root, "Chats", JSON.stringify([{ 本地聊天: `${site.origin}/chat?key={key}` }]));
  await newUserSession(page, "chatnt");
  await createToken(page, "off", false);
  const shown = page.getByText(MSG.noToken).waitFor({ timeout: 5000 });
  await page.goto("/chat/0", { waitUntil: "commit" });
  await shown;
  await expect(page.locator("iframe")).toHaveCount(0);
  await shot(page, "chat-no-token");
  await expect(page).toHaveURL(/\/token$/);
  await expect(page.getByRole("heading", { name: "令牌管理" })).toBeVisible();
});

test("with no chat links configured the menu has no 聊天 entry and the frame says whom to ask", async ({ page }) => {
  await setOption(root, "Chats", "[]");
  await newUserSession(page, "chatnone");
  await createToken(page, "on");
  await page.goto("/chat/0");
  await expect(page.getByText(MSG.none)).toBeVisible();
  await expect(sideMenu(page).getByText("聊天", { exact: true })).toHaveCount(0);
});

test("/chat2link goes to ChatLink with the key and the server address", async ({ page }) => {
  await setOption(root, "ChatLink", `${site.origin}/next`);
  await newUserSession(page, "chat2l");
  const { key } = await createToken(page, "on");
  await page.goto("/chat2link");
  await expect(page).toHaveURL((url) => url.origin === site.origin && url.pathname === "/next/");
  // The browser escapes the fragment's quotes and braces; the address inside stays URL-encoded.
  const fragment = new URL(page.url()).hash.replace(/^#\/\?settings=/, "");
  const settings = JSON.parse(fragment.replace(/%22/g, '"').replace(/%7B/gi, "{").replace(/%7D/gi, "}"));
  expect(settings).toEqual({ key, url: encodeURIComponent(await serverAddress(page)) });
  await expect(page.getByRole("heading", { name: "本地聊天客户端" })).toBeVisible();

  await setOption(root, "ChatLink", "");
  await page.goto(`${E2E_BASE_URL}/chat2link`);
  await expect(page.getByText(MSG.none)).toBeVisible();
});

test("the token page's chat menu offers ChatLink and ChatLink2 with the key in their fragment", async ({ page }) => {
  await setOption(root, "ChatLink", `${site.origin}/next`);
  await setOption(root, "ChatLink2", `${site.origin}/mj`);
  await newUserSession(page, "chatl2");
  const { key } = await createToken(page, "legacy");
  await page.goto("/token");
  await page.getByRole("button", { name: "聊天" }).first().click();
  await expect(page.getByRole("menuitem", { name: "默认聊天" })).toBeVisible();
  const popup = page.waitForEvent("popup");
  await page.getByRole("menuitem", { name: "聊天页面 2" }).click();
  const opened = await popup;
  await expect(opened).toHaveURL((url) => url.origin === site.origin && url.pathname === "/mj/");
  const fragment = new URL(opened.url()).hash.replace(/^#\/\?settings=/, "");
  // (Decoding the whole fragment also decodes the address, which the link carries URL-encoded.)
  expect(JSON.parse(decodeURIComponent(fragment))).toEqual({ key, url: await serverAddress(page) });
  await opened.close();

  // Unset, an entry is not offered.
  await setOption(root, "ChatLink2", "");
  await page.reload();
  await page.getByRole("button", { name: "聊天" }).first().click();
  await expect(page.getByRole("menuitem", { name: "默认聊天" })).toBeVisible();
  await expect(page.getByRole("menuitem", { name: "聊天页面 2" })).toHaveCount(0);
});

test("/chat2link without an enabled token says so and goes back to /token", async ({ page }) => {
  await setOption(root, "ChatLink", `${site.origin}/next`);
  await newUserSession(page, "chat2nt");
  const shown = page.getByText(MSG.noToken).waitFor({ timeout: 5000 });
  await page.goto("/chat2link", { waitUntil: "commit" });
  await shown;
  await expect(page).toHaveURL(/\/token$/);
});

test.describe("looks", () => {
  test("dark mode and a 390 px phone", async ({ page }) => {
    await setOption(root, "Chats", JSON.stringify([{ 本地聊天: `${site.origin}/chat?key={key}` }]));
    await newUserSession(page, "chatlook");
    await createToken(page, "on");
    await page.goto("/chat/0");
    await page.getByRole("button", { name: "切换明暗主题" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
    await expect(page.frameLocator('iframe[title="本地聊天"]').getByRole("heading")).toBeVisible();
    await shot(page, "chat-frame-dark");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/chat/0");
    await expect(page.frameLocator('iframe[title="本地聊天"]').getByRole("heading")).toBeVisible();
    await expectFits(page, 390);
    await shot(page, "chat-frame-narrow");
  });
});
