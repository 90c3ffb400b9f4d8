// Two-factor and step-up through the real console: a user enables two-factor in personal settings
// (the QR code's secret read off the dialog, codes computed from it), keeps the backup codes,
// signs out, signs in with the password and a code, then with a backup code, which works once;
// the step-up dialog asks for a code before a new access token and for root's password before a
// channel key is shown. Screenshots in light, dark and at 390 px.
import { readFileSync } from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import Database from "better-sqlite3";
import { generate } from "otplib";
import type { Browser, BrowserContext } from "@playwright/test";
import { E2E_BASE_URL } from "./env";
import { closeDialog, expect, expectFits, loginViaUi, type Page, SCREENSHOT_DIR, test, toast, uniqueName } from "./support";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });
// Codes come from a 30-second clock: a flow may wait for the next step.
test.setTimeout(180_000);

const SHOTS = process.env.QIAO_E2E_SHOTS ?? SCREENSHOT_DIR;
/** The visible window (a dialog's overlay covers only that much of a full-page picture), once dialogs have faded in. */
async function snap(page: Page, name: string) {
  await page.waitForTimeout(400);
  await page.screenshot({ path: `${SHOTS}/${name}.png` });
}

/** axe's WCAG 2.0/2.1 A and AA rules on what the page shows now, as tests/e2e/a11y.spec.ts runs them on every page. */
async function expectAccessible(page: Page, what: string) {
  // Mantine's transitions (dialogs, notifications) fade in: measure the settled colours.
  await page.waitForTimeout(400);
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const found = result.violations.map((v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect.soft(found, what).toEqual([]);
}

const PASSWORD = "password-123";
const card = (page: Page) => page.getByRole("region", { name: "两步验证" });

// ---- Codes --------------------------------------------------------------------------------------

/** The last step whose code each secret used: the server takes a code once, and only a later step after it. */
const usedSteps = new Map<string, number>();

/** A code the server takes now: this step's, or the next one's (one step of drift is allowed), waiting when both are used. */
async function freshCode(secret: string): Promise<string> {
  for (;;) {
    const step = Math.floor(Date.now() / 30_000);
    const use = Math.max(step, (usedSteps.get(secret) ?? 0) + 1);
    if (use <= step + 1) {
      usedSteps.set(secret, use);
      return generate({ secret, epoch: use * 30 });
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Types a code into the six boxes of a PinInput (it submits by itself on the sixth digit). */
async function typeCode(page: Page, code: string) {
  await page.getByLabel("验证码", { exact: true }).first().click();
  await page.keyboard.type(code);
}

// ---- The database, for what a test cannot wait for ----------------------------------------------

/** Forgets that the context's session stepped up (as if the five minutes had passed). */
async function expireStepUp(context: BrowserContext) {
  const cookie = (await context.cookies()).find((c) => c.name === "qiao_session");
  if (!cookie) throw new Error("no session cookie");
  const { jti } = JSON.parse(Buffer.from(cookie.value.split(".")[1]!, "base64url").toString()) as { jti: string };
  const db = new Database(path.join(process.env.QIAO_E2E_DATA_DIR!, "qiao.db"));
  try {
    db.prepare("UPDATE user_sessions SET verified_at = 0 WHERE id = ?").run(jti);
  } finally {
    db.close();
  }
}

// ---- Flows --------------------------------------------------------------------------------------

/** A new user, signed in, who enables two-factor in settings; returns the secret and the backup codes. */
async function enableTwoFactor(page: Page, shots?: string) {
  const username = uniqueName("tfa");
  const res = await page.request.post("/api/user/register", { data: { username, password: PASSWORD, password2: PASSWORD } });
  expect((await res.json()).success).toBe(true);
  await loginViaUi(page, username, PASSWORD);
  await page.goto("/setting");
  await expect(card(page).getByText("未启用")).toBeVisible();
  await card(page).getByRole("button", { name: "启用两步验证" }).click();

  const dialog = page.getByRole("dialog", { name: "启用两步验证" });
  await expect(dialog.getByRole("img", { name: "两步验证二维码" })).toBeVisible();
  const secret = await dialog.getByRole("textbox", { name: "密钥" }).inputValue();
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  if (shots) {
    await snap(page, `${shots}-setup-qr`);
    await expectAccessible(page, `the setup dialog (${shots})`);
  }
  await dialog.getByRole("button", { name: "下一步" }).click();
  await typeCode(page, await freshCode(secret));
  await expect(toast(page, "两步验证启用成功")).toBeVisible();
  const grid = dialog.getByLabel("备用码");
  await expect(grid.locator("code")).toHaveCount(10);
  const codes = (await grid.locator("code").allTextContents()).map((c) => c.trim());
  for (const code of codes) expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
  if (shots) {
    await snap(page, `${shots}-backup-codes`);
    await expectAccessible(page, `the backup codes (${shots})`);
  }
  return { username, secret, codes, dialog };
}

type Look = { viewport?: { width: number; height: number }; colorScheme?: "light" | "dark" };

/** A second browser (its own cookies), signed out. */
async function newBrowser(browser: Browser, look: Look = {}) {
  const context = await browser.newContext({
    baseURL: E2E_BASE_URL,
    locale: "zh-CN",
    viewport: look.viewport,
    colorScheme: look.colorScheme,
  });
  return { context, page: await context.newPage() };
}

/** The password step of the login form; the code step follows for an account with two-factor. */
async function passwordStep(page: Page, username: string) {
  await page.goto("/login");
  await page.getByLabel("用户名", { exact: true }).fill(username);
  await page.getByLabel("密码", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "登录", exact: true }).click();
  await expect(page.getByRole("heading", { name: "两步验证" })).toBeVisible();
}

async function backupCodeStep(page: Page, code: string) {
  await page.getByRole("switch", { name: "使用备用码" }).check({ force: true });
  await page.getByRole("textbox", { name: "备用码" }).fill(code);
  await page.getByRole("button", { name: "验证", exact: true }).click();
}

// ---- Tests --------------------------------------------------------------------------------------

test("enable two-factor, keep the codes, sign in with a code, then with a backup code once", async ({ page, browser }) => {
  const { username, secret, codes, dialog } = await enableTwoFactor(page, "light");

  // The codes copy and download as text, one a line.
  await dialog.getByRole("button", { name: "复制全部" }).click();
  await expect(toast(page, "备用码已复制到剪贴板！")).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(codes.join("\n"));
  const download = page.waitForEvent("download");
  await dialog.getByRole("button", { name: "下载" }).click();
  const file = await (await download).path();
  expect(readFileSync(file, "utf8")).toBe(`${codes.join("\n")}\n`);
  await dialog.getByRole("button", { name: "我已保存" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(card(page).getByText("已启用")).toBeVisible();
  await expect(card(page).getByText("剩余备用码：10 个")).toBeVisible();
  await expectAccessible(page, "the two-factor card, on (light)");

  // Sign out, and back in: the password, then the code.
  await page.getByTestId("user-menu").click();
  await page.getByRole("menuitem", { name: "退出" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await passwordStep(page, username);
  await snap(page, "light-login-code-step");
  await expectAccessible(page, "the login code step (light)");
  await typeCode(page, await freshCode(secret));
  await expect(toast(page, "登录成功！")).toBeVisible();
  await expect(page).toHaveURL(/\/token$/);

  // Elsewhere, with a backup code: it works once.
  const other = await newBrowser(browser);
  try {
    await passwordStep(other.page, username);
    await backupCodeStep(other.page, codes[0]!.toLowerCase());
    await expect(other.page).toHaveURL(/\/token$/);

    const third = await newBrowser(browser);
    try {
      await passwordStep(third.page, username);
      await backupCodeStep(third.page, codes[0]!);
      await expect(toast(third.page, "验证码或备用码错误，请重试")).toBeVisible();
      await expect(third.page).toHaveURL(/\/login$/);
      await backupCodeStep(third.page, codes[1]!);
      await expect(third.page).toHaveURL(/\/token$/);
    } finally {
      await third.context.close();
    }
  } finally {
    await other.context.close();
  }
  await page.goto("/setting");
  await expect(card(page).getByText("剩余备用码：8 个")).toBeVisible();

  // A new access token asks for step-up; the code in the dialog lets the call through.
  await expireStepUp(page.context());
  await page.getByRole("region", { name: "系统访问令牌" }).getByRole("button", { name: "生成系统访问令牌" }).click();
  const stepUp = page.getByRole("dialog", { name: "验证身份" });
  await expect(stepUp.getByText("此操作涉及敏感信息")).toBeVisible();
  await stepUp.getByText("两步验证码").click();
  await snap(page, "light-step-up-code");
  await expectAccessible(page, "the step-up dialog (light)");
  await stepUp.getByRole("textbox", { name: "验证码" }).fill(await freshCode(secret));
  await stepUp.getByRole("button", { name: "验证", exact: true }).click();
  await expect(stepUp).toHaveCount(0);
  const tokenDialog = page.getByRole("dialog", { name: "新的系统访问令牌" });
  await expect(tokenDialog.getByLabel("系统访问令牌")).toHaveText(/^[A-Za-z0-9_-]{32}$/);
  await tokenDialog.getByRole("button", { name: "关闭" }).last().click();

  // Switching off takes a code and leaves the account with the password alone.
  await card(page).getByRole("button", { name: "停用两步验证" }).click();
  const off = page.getByRole("dialog", { name: "停用两步验证" });
  await off.getByRole("textbox", { name: "验证码" }).fill(codes[2]!);
  await off.getByRole("button", { name: "停用", exact: true }).click();
  await expect(toast(page, "两步验证已停用")).toBeVisible();
  await expect(card(page).getByText("未启用")).toBeVisible();
});

test("the step-up dialog asks root for the password before a channel key is shown", async ({ page }) => {
  await loginViaUi(page, "root", "123456");
  const userId = await page.evaluate(() => JSON.parse(localStorage.getItem("user") ?? "{}").id as number);
  const key = `sk-step-up-${uniqueName("k")}`;
  const created = await page.request.post("/api/channel/", {
    headers: { "New-Api-User": String(userId) },
    data: { type: 1, name: uniqueName("stepup"), key, models: "gpt-4o-mini", group: "default" },
  });
  const data = (await created.json()).data as { id: number } | { id: number }[];
  const channel = Array.isArray(data) ? data[0]! : data;
  expect(channel.id).toBeGreaterThan(0);

  await expireStepUp(page.context());
  await page.goto(`/channel/edit/${channel.id}`);
  await page.getByRole("button", { name: "查看密钥" }).click();
  const stepUp = page.getByRole("dialog", { name: "验证身份" });
  await expect(stepUp.getByRole("textbox", { name: "密码", exact: true })).toBeVisible();
  await snap(page, "light-step-up-password");

  await stepUp.getByRole("textbox", { name: "密码", exact: true }).fill("wrong-password");
  await stepUp.getByRole("button", { name: "验证", exact: true }).click();
  await expect(toast(page, "密码错误")).toBeVisible();
  await stepUp.getByRole("textbox", { name: "密码", exact: true }).fill("123456");
  await stepUp.getByRole("button", { name: "验证", exact: true }).click();
  const shown = page.getByRole("dialog", { name: "渠道密钥" });
  await expect(shown.getByText(key)).toBeVisible();
  await shown.getByRole("button", { name: "复制" }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(key);
  await closeDialog(page);

  // Within five minutes the key shows again without asking.
  await page.getByRole("button", { name: "查看密钥" }).click();
  await expect(page.getByRole("dialog", { name: "渠道密钥" }).getByText(key)).toBeVisible();
  await expect(stepUp).toHaveCount(0);

  // Closing the dialog instead leaves the key unshown and says nothing more.
  await closeDialog(page);
  await expireStepUp(page.context());
  await page.getByRole("button", { name: "查看密钥" }).click();
  await expect(stepUp).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(stepUp).toHaveCount(0);
  await expect(page.getByRole("dialog", { name: "渠道密钥" })).toHaveCount(0);
});

for (const look of [
  { name: "dark", colorScheme: "dark" as const, viewport: { width: 1280, height: 800 } },
  { name: "narrow", colorScheme: "light" as const, viewport: { width: 390, height: 844 } },
]) {
  test.describe(`looks: ${look.name}`, () => {
    test.use({ colorScheme: look.colorScheme, viewport: look.viewport });

    test(`the setup, the backup codes, the code step and the step-up dialog (${look.name})`, async ({ page, browser }) => {
      const fits = async (p: Page) => await expectFits(p, look.viewport.width);
      const { username, secret, codes, dialog } = await enableTwoFactor(page, look.name);
      await fits(page);
      await dialog.getByRole("button", { name: "我已保存" }).click();

      const other = await newBrowser(browser, look);
      try {
        await passwordStep(other.page, username);
        await fits(other.page);
        await snap(other.page, `${look.name}-login-code-step`);
        await expectAccessible(other.page, `the login code step (${look.name})`);
        await backupCodeStep(other.page, codes[0]!);
        await expect(other.page).toHaveURL(/\/token$/);
      } finally {
        await other.context.close();
      }

      await expireStepUp(page.context());
      await page.getByRole("region", { name: "系统访问令牌" }).getByRole("button", { name: "生成系统访问令牌" }).click();
      const stepUp = page.getByRole("dialog", { name: "验证身份" });
      await expect(stepUp.getByRole("textbox", { name: "密码", exact: true })).toBeVisible();
      await fits(page);
      await snap(page, `${look.name}-step-up`);
      await expectAccessible(page, `the step-up dialog (${look.name})`);
      await stepUp.getByText("两步验证码").click();
      await stepUp.getByRole("textbox", { name: "验证码" }).fill(await freshCode(secret));
      await stepUp.getByRole("button", { name: "验证", exact: true }).click();
      await expect(page.getByRole("dialog", { name: "新的系统访问令牌" })).toBeVisible();
    });
  });
}
