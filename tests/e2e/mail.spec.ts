// Everything that sends e-mail, through the real console, with a real SMTP listener on loopback
// (tests/mocks/smtp.ts) reading what arrives: registration with a mailed code, the password reset
// (/reset, then the mailed link to /user/reset), and binding an address in the personal tab. Turning
// e-mail verification on changes the register page every other spec uses, so these run on a
// server of their own (tests/e2e/private-server.ts). Screenshots in light, dark and at 390 px.
import type { APIRequestContext, Browser, BrowserContext } from "@playwright/test";
import { startMockSmtp, type MockSmtp } from "../mocks/smtp";
import { type PrivateServer, startPrivateServer } from "./private-server";
import { expect, expectFits, loginViaUi, type Page, setOption, shot, test, toast, uniqueName } from "./support";

test.describe.configure({ mode: "serial" });
test.use({ permissions: ["clipboard-read", "clipboard-write"] });

let server: PrivateServer;
let smtp: MockSmtp;
let root: APIRequestContext;

const codeIn = (body: string) => /<strong>([0-9a-f]{6})<\/strong>/.exec(body)![1]!;
const linkIn = (body: string) => new URL(/href="([^"]+)"/.exec(body)![1]!.replace(/&#38;/g, "&"));

async function newContext(browser: Browser, options: { width?: number } = {}): Promise<BrowserContext> {
  return browser.newContext({
    baseURL: server.baseURL,
    viewport: { width: options.width ?? 1280, height: 800 },
    permissions: ["clipboard-read", "clipboard-write"],
  });
}

test.beforeAll(async ({ playwright }) => {
  test.setTimeout(180_000);
  smtp = await startMockSmtp();
  server = await startPrivateServer();
  // Root's API: the login's cookie stays in the context; every console call carries New-Api-User.
  root = await playwright.request.newContext({ baseURL: server.baseURL, extraHTTPHeaders: { "New-Api-User": "1" } });
  expect((await (await root.post("/api/user/login", { data: { username: "root", password: "123456" } })).json()).success).toBe(true);
  await setOption(root, "SMTPServer", "127.0.0.1");
  await setOption(root, "SMTPPort", String(smtp.port));
  await setOption(root, "SMTPFrom", "noreply@qiao.test");
  await setOption(root, "ServerAddress", server.baseURL);
  await setOption(root, "EmailVerificationEnabled", "true");
});

test.afterAll(async () => {
  await root?.dispose();
  await server?.stop();
  await smtp?.close();
});

const email = uniqueName("mail").toLowerCase();
const address = `${email}@example.com`;
const username = uniqueName("m");
const password = "password-123";

async function fillRegister(page: Page) {
  await page.goto("/register");
  await page.getByLabel("用户名", { exact: true }).fill(username);
  await page.getByLabel("密码", { exact: true }).fill(password);
  await page.getByLabel("确认密码").fill(password);
}

test("registers with the code mailed to the address; the button waits 30 s before another mail", async ({ browser }) => {
  const context = await newContext(browser);
  const page = await context.newPage();
  try {
    await fillRegister(page);
    await expect(page.getByLabel("邮箱")).toBeVisible();
    await shot(page, "mail-register");
    // The button needs an address first.
    await page.getByRole("button", { name: "获取验证码" }).click();
    await expect(page.getByText("请输入邮箱地址")).toBeVisible();
    await page.getByLabel("邮箱").fill(address);
    await page.getByRole("button", { name: "获取验证码" }).click();
    await expect(toast(page, "验证码发送成功，请检查你的邮箱！")).toBeVisible();
    await expect(page.getByRole("button", { name: /重新发送 \(\d+\)/ })).toBeDisabled();
    const mail = await smtp.waitFor(address);
    expect(mail.subject).toBe("Qiao邮箱验证邮件");

    await page.getByLabel("验证码").fill("000000");
    await page.getByRole("button", { name: "注册", exact: true }).click();
    await expect(toast(page, "验证码错误或已过期")).toBeVisible();
    await page.getByLabel("验证码").fill(codeIn(mail.body));
    await page.getByRole("button", { name: "注册", exact: true }).click();
    await expect(toast(page, "注册成功！")).toBeVisible();
    await expect(page).toHaveURL(/\/login$/);
    await loginViaUi(page, username, password);
  } finally {
    await context.close();
  }
});

test("resets a password: /reset mails a link, the confirm page gives a new password once", async ({ browser }) => {
  const context = await newContext(browser);
  const page = await context.newPage();
  try {
    await page.goto("/login");
    await page.getByRole("link", { name: "点击重置" }).click();
    await expect(page).toHaveURL(/\/reset$/);
    await expect(page.getByRole("heading", { name: "密码重置" })).toBeVisible();
    await shot(page, "mail-reset");
    await page.getByLabel("邮箱").fill("nobody@example.com");
    await page.getByRole("button", { name: "提交" }).click();
    await expect(toast(page, "该邮箱地址未注册")).toBeVisible();

    const before = smtp.mails.length;
    await page.getByLabel("邮箱").fill(address);
    await page.getByRole("button", { name: "提交" }).click();
    await expect(toast(page, "重置邮件发送成功，请检查邮箱！")).toBeVisible();
    await expect(page.getByRole("button", { name: /重试 \(\d+\)/ })).toBeDisabled();
    await expect.poll(() => smtp.mails.length).toBe(before + 1);
    const mail = smtp.mails[before]!;
    expect(mail.to).toEqual([address]);
    expect(mail.subject).toBe("Qiao密码重置");
    const link = linkIn(mail.body);
    expect(link.pathname).toBe("/user/reset");

    await page.goto(`${link.pathname}${link.search}`);
    await expect(page.getByRole("heading", { name: "密码重置确认" })).toBeVisible();
    await expect(page.getByLabel("邮箱")).toHaveValue(address);
    await shot(page, "mail-reset-confirm");
    await page.getByRole("button", { name: "提交" }).click();
    const shown = page.getByTestId("new-password");
    await expect(shown).toHaveValue(/^[0-9a-f]{12}$/);
    const newPassword = await shown.inputValue();
    await expect(toast(page, `新密码已复制到剪贴板：${newPassword}`)).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(newPassword);
    await expect(page.getByRole("button", { name: "密码重置完成" })).toBeDisabled();
    await shot(page, "mail-reset-done");

    // The link works once.
    await page.goto(`${link.pathname}${link.search}`);
    await page.getByRole("button", { name: "提交" }).click();
    await expect(toast(page, "重置链接非法或已过期")).toBeVisible();
    await loginViaUi(page, username, newPassword);

    await page.goto("/user/reset");
    await expect(page.getByText("无效的重置链接，请重新发起密码重置请求")).toBeVisible();
  } finally {
    await context.close();
  }
});

test("binds an e-mail address from the personal tab", async ({ browser }) => {
  const context = await newContext(browser);
  const page = await context.newPage();
  try {
    const name = uniqueName("b");
    const res = await page.request.post("/api/user/register", {
      data: { username: name, password, password2: password },
    });
    // E-mail verification is on: registering needs a code, so this user is made by root.
    expect((await res.json()).success).toBe(false);
    expect((await (await root.post("/api/user/", { data: { username: name, display_name: name, password } })).json()).success).toBe(true);
    await loginViaUi(page, name, password);
    await page.goto("/setting");
    const card = page.getByRole("region", { name: "账户绑定" });
    await card.getByRole("button", { name: "绑定邮箱" }).click();
    const dialog = page.getByRole("dialog", { name: "绑定邮箱地址" });
    const bound = `${name.toLowerCase()}@example.com`;
    await dialog.getByLabel("邮箱").fill(bound);
    await dialog.getByRole("button", { name: "获取验证码" }).click();
    await expect(toast(page, "验证码发送成功，请检查你的邮箱！")).toBeVisible();
    await dialog.getByLabel("验证码").fill(codeIn((await smtp.waitFor(bound)).body));
    await shot(page, "mail-bind-dialog");
    await dialog.getByRole("button", { name: "绑定", exact: true }).click();
    await expect(toast(page, "邮箱账户绑定成功！")).toBeVisible();
    await expect(dialog).toHaveCount(0);
    await expect(card.getByText(bound)).toBeVisible();
    await expect(card.getByRole("button", { name: "修改绑定" })).toBeVisible();
  } finally {
    await context.close();
  }
});

test("the new pages in dark mode and at 390 px", async ({ browser }) => {
  for (const suffix of ["dark", "390"] as const) {
    const context = await newContext(browser, suffix === "390" ? { width: 390 } : {});
    const page = await context.newPage();
    try {
      await page.goto("/reset");
      await expect(page.getByRole("heading", { name: "密码重置" })).toBeVisible();
      if (suffix === "dark") {
        await page.getByRole("button", { name: "切换明暗主题" }).click();
        await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
      }
      await shot(page, `mail-reset-${suffix}`);
      await page.goto(`/user/reset?email=${encodeURIComponent(address)}&token=${"0".repeat(32)}`);
      await expect(page.getByRole("heading", { name: "密码重置确认" })).toBeVisible();
      await shot(page, `mail-reset-confirm-${suffix}`);
      await page.goto("/register");
      await expect(page.getByLabel("验证码")).toBeVisible();
      await shot(page, `mail-register-${suffix}`);
      if (suffix === "390") await expectFits(page, 390);
    } finally {
      await context.close();
    }
  }
});
