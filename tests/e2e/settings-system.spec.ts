// Root's system tab (spec §2 Settings → system, §5 Options) through the real console: values saved,
// reloaded and kept; secrets write-only (shown as set, never in the HTML, the RSC payload or
// GET /api/option/, and kept when saved empty); the payment settings (EPay, Stripe) with their
// callback addresses; every third-party login open (their flows: tests/e2e/oauth.spec.ts,
// tests/e2e/wechat-telegram.spec.ts); turning
// password login off asks first and then refuses password logins. Screenshots in light, dark and
// at 390 px.
import type { APIRequestContext } from "@playwright/test";
import { E2E_BASE_URL, ROOT_STATE } from "./env";
import type { Locator } from "@playwright/test";
import { expect, expectFits, type Page, SCREENSHOT_DIR, shot, test, toast, uniqueName } from "./support";

test.use({ storageState: ROOT_STATE });

const card = (page: Page, name: string) => page.getByRole("region", { name });

type Listed = { key: string; value: string; secret?: boolean; set?: boolean };

/** Root's API through the stored session. */
async function rootApi(playwright: { request: { newContext: (o: object) => Promise<APIRequestContext> } }) {
  const api = await playwright.request.newContext({
    baseURL: E2E_BASE_URL,
    storageState: ROOT_STATE,
    extraHTTPHeaders: { "New-Api-User": "1" },
  });
  const list = async () => {
    const res = await api.get("/api/option/");
    const text = await res.text();
    return { text, rows: new Map((JSON.parse(text).data as Listed[]).map((o) => [o.key, o])) };
  };
  const set = async (key: string, value: string) => {
    const body = await (await api.put("/api/option/", { data: { key, value } })).json();
    expect(body.success, `${key}: ${body.message}`).toBe(true);
  };
  return { api, list, set, dispose: () => api.dispose() };
}

/** Clicks a save button and waits for its own success toast (an earlier one has gone first). */
async function save(page: Page, region: Locator, button: string) {
  await expect(toast(page, "保存成功")).toHaveCount(0);
  await region.getByRole("button", { name: button }).click();
  await expect(toast(page, "保存成功")).toBeVisible();
}

async function openTab(page: Page) {
  await page.goto("/setting?tab=system");
  await expect(page.getByRole("tab", { name: "系统设置" })).toHaveAttribute("aria-selected", "true");
}

test("values are saved, kept after a reload, and secrets never reach the browser", async ({ page, playwright }) => {
  const root = await rootApi(playwright);
  const workerKey = uniqueName("wk-secret-");
  const smtpToken = uniqueName("smtp-secret-");
  try {
    await openTab(page);
    await shot(page, "settings-system");

    // Worker proxy: the address is stored without its trailing slash; the key is only "set".
    const worker = card(page, "代理设置");
    await expect(worker.getByLabel("Worker 密钥")).toHaveAttribute("placeholder", "未设置");
    await worker.getByLabel("Worker 地址").fill("https://worker.example.com/");
    await worker.getByLabel("Worker 密钥").fill(workerKey);
    await save(page, worker, "更新 Worker 设置");
    await expect(worker.getByLabel("Worker 地址")).toHaveValue("https://worker.example.com");
    await expect(worker.getByLabel("Worker 密钥")).toHaveValue("");
    await expect(worker.getByLabel("Worker 密钥")).toHaveAttribute("placeholder", "已设置");

    // Nothing changed: nothing is sent.
    await worker.getByRole("button", { name: "更新 Worker 设置" }).click();
    await expect(toast(page, "你似乎并没有修改什么")).toBeVisible();

    // SMTP: port 465 forces SSL on.
    const smtp = card(page, "配置 SMTP");
    await expect(smtp.getByLabel("SMTP 端口")).toHaveValue("587");
    await smtp.getByLabel("SMTP 服务器地址").fill("smtp.example.com");
    await smtp.getByLabel("SMTP 端口").fill("465");
    const ssl = smtp.getByRole("switch", { name: "启用 SMTP SSL" });
    await expect(ssl).toBeChecked();
    await expect(ssl).toBeDisabled();
    await expect(smtp.getByText("端口 465 必须使用 SSL")).toBeVisible();
    await smtp.getByLabel("SMTP 账户").fill("mailer@example.com");
    await smtp.getByLabel("SMTP 发送者邮箱").fill("noreply@example.com");
    await smtp.getByLabel("SMTP 访问凭证").fill(smtpToken);
    await save(page, smtp, "保存 SMTP 设置");

    // E-mail domains: one more domain and the alias rule.
    const domains = card(page, "配置邮箱域名白名单");
    await domains.getByLabel("允许的邮箱域名").fill("example.org");
    await domains.getByLabel("允许的邮箱域名").press("Enter");
    await domains.getByRole("switch", { name: "启用邮箱别名限制（例如：ab.cd@gmail.com）" }).click();
    await save(page, domains, "保存邮箱域名白名单设置");

    await page.reload();
    await expect(card(page, "代理设置").getByLabel("Worker 地址")).toHaveValue("https://worker.example.com");
    await expect(card(page, "代理设置").getByLabel("Worker 密钥")).toHaveAttribute("placeholder", "已设置");
    await expect(smtp.getByLabel("SMTP 服务器地址")).toHaveValue("smtp.example.com");
    await expect(smtp.getByLabel("SMTP 端口")).toHaveValue("465");
    await expect(smtp.getByLabel("SMTP 账户")).toHaveValue("mailer@example.com");
    await expect(smtp.getByLabel("SMTP 发送者邮箱")).toHaveValue("noreply@example.com");
    await expect(smtp.getByLabel("SMTP 访问凭证")).toHaveAttribute("placeholder", "已设置");
    await expect(smtp.getByRole("switch", { name: "启用 SMTP SSL" })).toBeChecked();
    await expect(domains.getByText("example.org", { exact: true })).toBeVisible();
    await expect(domains.getByText("gmail.com", { exact: true })).toBeVisible();
    await expect(domains.getByRole("switch", { name: "启用邮箱别名限制（例如：ab.cd@gmail.com）" })).toBeChecked();
    const stored = await root.list();
    expect(stored.rows.get("SMTPSSLEnabled")?.value).toBe("true");
    expect(stored.rows.get("EmailDomainWhitelist")?.value.split(",")).toContain("example.org");

    // The secrets are in no answer the browser gets: the page's HTML, its RSC payload, the API.
    expect(await page.content()).not.toContain(workerKey);
    for (const headers of [{}, { RSC: "1" }] as Record<string, string>[]) {
      const text = await (await page.request.get("/setting?tab=system", { headers })).text();
      expect(text).toContain("WorkerUrl");
      expect(text).not.toContain(workerKey);
      expect(text).not.toContain(smtpToken);
    }
    expect(stored.text).not.toContain(workerKey);
    expect(stored.text).not.toContain(smtpToken);
    expect(stored.rows.get("WorkerValidKey")).toEqual({ key: "WorkerValidKey", value: "", secret: true, set: true });

    // Saving with the secret field empty keeps the stored secret.
    await card(page, "代理设置").getByLabel("Worker 地址").fill("https://worker2.example.com");
    await save(page, card(page, "代理设置"), "更新 Worker 设置");
    const after = await root.list();
    expect(after.rows.get("WorkerUrl")?.value).toBe("https://worker2.example.com");
    expect(after.rows.get("WorkerValidKey")?.set).toBe(true);
  } finally {
    for (const [k, v] of [
      ["WorkerUrl", ""],
      ["WorkerValidKey", ""],
      ["SMTPServer", ""],
      ["SMTPPort", "587"],
      ["SMTPAccount", ""],
      ["SMTPFrom", ""],
      ["SMTPToken", ""],
      ["SMTPSSLEnabled", "false"],
      ["EmailAliasRestrictionEnabled", "false"],
      ["EmailDomainWhitelist", "gmail.com,163.com,126.com,qq.com,outlook.com,hotmail.com,icloud.com,yahoo.com,foxmail.com"],
    ]) {
      await root.set(k!, v!);
    }
    await root.dispose();
  }
});

test("payment settings: EPay is configured here, and the notify address shown follows the callback address", async ({
  page,
  playwright,
}) => {
  const root = await rootApi(playwright);
  const keys = ["PayAddress", "EpayId", "EpayKey", "CustomCallbackAddress"];
  const before = (await root.list()).rows;
  try {
    await openTab(page);
    const payment = card(page, "支付设置");
    await expect(payment.getByText("尚未开放", { exact: true })).toHaveCount(0);
    const server = before.get("ServerAddress")!.value.replace(/\/+$/, "");
    await expect(payment.getByText(`${server}/api/user/epay/notify`)).toBeVisible();
    await payment.getByLabel("支付地址").fill("https://pay.example.com/");
    await payment.getByLabel("易支付商户 ID").fill("1001");
    await payment.getByLabel("易支付商户密钥").fill("e2e-settings-epay-key");
    await payment.getByLabel("回调地址").fill("https://cb.example.com");
    await save(page, payment, "更新支付设置");
    await expect(payment.getByLabel("支付地址")).toHaveValue("https://pay.example.com");
    await expect(payment.getByLabel("易支付商户密钥")).toHaveAttribute("placeholder", "已设置");
    await expect(payment.getByText("https://cb.example.com/api/user/epay/notify")).toBeVisible();
    const stored = (await root.list()).rows;
    expect(stored.get("EpayId")?.value).toBe("1001");
    expect(stored.get("EpayKey")).toEqual({ key: "EpayKey", value: "", secret: true, set: true });
  } finally {
    for (const key of keys) await root.set(key, before.get(key)?.value ?? "");
    await root.dispose();
  }
});

test("payment settings: the Stripe block saves, and its webhook URL follows the server and callback addresses", async ({
  page,
  playwright,
}) => {
  const root = await rootApi(playwright);
  const original = (await root.list()).rows.get("ServerAddress")!.value;
  try {
    await openTab(page);
    const payment = card(page, "支付设置");
    const stripe = card(page, "配置 Stripe");

    // The server address is saved first; the OAuth and payment hints follow it.
    await card(page, "通用设置").getByLabel("服务器地址").fill("https://gw.example.com/");
    await save(page, card(page, "通用设置"), "更新服务器地址");
    await expect(card(page, "通用设置").getByLabel("服务器地址")).toHaveValue("https://gw.example.com");
    await expect(card(page, "配置 GitHub OAuth App").getByText("https://gw.example.com/oauth/github")).toBeVisible();
    await expect(stripe.getByText("https://gw.example.com/api/stripe/webhook")).toBeVisible();
    for (const event of ["checkout.session.completed", "checkout.session.async_payment_succeeded", "checkout.session.expired"]) {
      await expect(stripe.getByText(event, { exact: true })).toBeVisible();
    }

    // A callback address replaces it (its trailing slash dropped).
    await payment.getByLabel("回调地址").fill("https://cb.example.com/");
    await save(page, payment, "更新支付设置");
    await expect(stripe.getByText("https://cb.example.com/api/stripe/webhook")).toBeVisible();

    // The two secrets are write-only.
    await stripe.getByLabel("API 密钥").fill("sk_test_e2e_settings");
    await stripe.getByLabel("Webhook 签名密钥").fill("whsec_e2e_settings");
    await stripe.getByLabel("商品价格 ID").fill("price_e2e");
    await stripe.getByLabel("充值价格（x 价格币种/美金）").fill("7.5");
    await save(page, stripe, "保存 Stripe 设置");
    await expect(stripe.getByLabel("API 密钥")).toHaveAttribute("placeholder", "已设置");
    await expect(stripe.getByLabel("Webhook 签名密钥")).toHaveAttribute("placeholder", "已设置");
    await stripe.screenshot({ path: `${SCREENSHOT_DIR}/settings-system-stripe.png` });
    const stored = (await root.list()).rows;
    expect(stored.get("StripeApiSecret")).toEqual({ key: "StripeApiSecret", value: "", secret: true, set: true });
    expect(stored.get("StripePriceId")?.value).toBe("price_e2e");
    expect(stored.get("StripeUnitPrice")?.value).toBe("7.5");
    expect(stored.get("CustomCallbackAddress")?.value).toBe("https://cb.example.com");
  } finally {
    await root.set("ServerAddress", original);
    for (const key of ["CustomCallbackAddress", "StripeApiSecret", "StripeWebhookSecret", "StripePriceId"]) await root.set(key, "");
    await root.set("StripeUnitPrice", "8");
    await root.dispose();
  }
});

test("turning password login off asks first, then password logins are refused", async ({ page, playwright, browser }) => {
  const root = await rootApi(playwright);
  try {
    await openTab(page);
    const toggles = card(page, "配置登录注册");
    const passwordLogin = toggles.getByRole("switch", { name: "允许通过密码进行登录" });
    await expect(passwordLogin).toBeChecked();

    // Cancelled: nothing changes.
    await passwordLogin.click();
    const dialog = page.getByRole("dialog", { name: "确认取消密码登录" });
    await expect(dialog.getByText("您确定要取消密码登录功能吗？这可能会影响用户的登录方式。")).toBeVisible();
    await dialog.getByRole("button", { name: "取消" }).click();
    await expect(dialog).toHaveCount(0);
    await expect(passwordLogin).toBeChecked();
    expect((await root.list()).rows.get("PasswordLoginEnabled")?.value).toBe("true");

    await passwordLogin.click();
    await dialog.getByRole("button", { name: "确定" }).click();
    await expect(passwordLogin).not.toBeChecked();
    expect((await root.list()).rows.get("PasswordLoginEnabled")?.value).toBe("false");

    // A visitor can no longer log in with a password: the form is gone and the API refuses.
    const visitor = await browser.newContext({ baseURL: E2E_BASE_URL });
    const login = await visitor.newPage();
    await login.goto("/login");
    await expect(login.getByText("管理员关闭了密码登录")).toBeVisible();
    await expect(login.getByRole("button", { name: "登录", exact: true })).toHaveCount(0);
    const refused = await (await login.request.post("/api/user/login", { data: { username: "root", password: "123456" } })).json();
    expect(refused).toEqual({ success: false, message: "管理员关闭了密码登录" });

    // Turning it back on needs no confirmation.
    await passwordLogin.click();
    await expect(passwordLogin).toBeChecked();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    const allowed = await (await login.request.post("/api/user/login", { data: { username: "root", password: "123456" } })).json();
    expect(allowed.success).toBe(true);
    await visitor.close();
  } finally {
    await root.set("PasswordLoginEnabled", "true");
    await root.dispose();
  }
});

test("every third-party login is open: its switch and settings work, and a login stored on shows its button", async ({
  page,
  playwright,
  browser,
}) => {
  const root = await rootApi(playwright);
  try {
    // Stored on through the API (as before this version, or by a script).
    await root.set("GitHubClientId", "Iv1.e2e-client");
    await root.set("GitHubClientSecret", "gh-e2e-client-secret");
    await root.set("GitHubOAuthEnabled", "true");
    await root.set("TelegramBotToken", "123:e2e-token");
    await root.set("TelegramBotName", "qiao_e2e_bot");
    await root.set("TelegramOAuthEnabled", "true");
    await openTab(page);
    const toggles = card(page, "配置登录注册");
    for (const name of ["允许通过 GitHub 账户登录 & 注册", "允许通过 Telegram 进行登录"]) {
      await expect(toggles.getByRole("switch", { name })).toBeChecked();
    }
    for (const name of [
      "允许通过 GitHub 账户登录 & 注册",
      "允许通过 LinuxDO 账户登录 & 注册",
      "允许通过微信登录 & 注册",
      "允许通过 Telegram 进行登录",
      "允许通过 OIDC 登录 & 注册",
      "启用 Turnstile 用户校验",
    ]) {
      await expect(toggles.getByRole("switch", { name })).toBeEnabled();
    }
    for (const [title, label] of [
      ["配置 GitHub OAuth App", "GitHub Client ID"],
      ["配置 LinuxDO OAuth", "LinuxDO Client ID"],
      ["配置 WeChat Server", "WeChat Server 服务器地址"],
      ["配置 Telegram 登录", "Telegram Bot 名称"],
      ["配置 OIDC", "Well-Known URL"],
    ] as const) {
      await expect(card(page, title).getByText("尚未开放", { exact: true })).toHaveCount(0);
      await expect(card(page, title).getByLabel(label)).toBeEnabled();
      await expect(card(page, title).getByRole("button", { name: /^保存/ })).toBeVisible();
    }

    const visitor = await browser.newContext({ baseURL: E2E_BASE_URL });
    const login = await visitor.newPage();
    await login.goto("/login");
    await expect(login.getByRole("button", { name: "GitHub", exact: true })).toBeVisible();
    await expect(login.getByRole("button", { name: "LinuxDO" })).toHaveCount(0);
    await visitor.close();
  } finally {
    await root.set("GitHubOAuthEnabled", "false");
    await root.set("GitHubClientId", "");
    await root.set("GitHubClientSecret", "");
    await root.set("TelegramOAuthEnabled", "false");
    await root.set("TelegramBotToken", "");
    await root.set("TelegramBotName", "");
    await root.dispose();
  }
});

test("监控指标: the token is write-only, and /metrics answers only to it", async ({ page, playwright }) => {
  const root = await rootApi(playwright);
  const token = uniqueName("metrics-secret-");
  try {
    expect((await page.request.get("/metrics")).status()).toBe(404);
    await openTab(page);
    const metrics = card(page, "监控指标");
    const field = metrics.getByLabel("监控指标令牌");
    await expect(field).toHaveAttribute("placeholder", "未设置");
    await field.fill(token);
    await save(page, metrics, "保存监控指标设置");
    await expect(field).toHaveValue("");
    await expect(field).toHaveAttribute("placeholder", "已设置");
    await metrics.screenshot({ path: `${SCREENSHOT_DIR}/settings-system-metrics.png` });
    expect((await page.request.get("/metrics")).status()).toBe(401);
    expect((await page.request.get("/metrics", { headers: { authorization: "Bearer wrong" } })).status()).toBe(401);
    const scrape = await page.request.get("/metrics", { headers: { authorization: `Bearer ${token}` } });
    expect(scrape.status()).toBe(200);
    expect(scrape.headers()["content-type"]).toContain("text/plain");
    expect(await scrape.text()).toContain("qiao_relay_requests_total");
    expect((await root.list()).text).not.toContain(token);
  } finally {
    await root.set("MetricsToken", "");
    await root.dispose();
  }
});

test("dark mode and a 390 px phone", async ({ page }) => {
  await openTab(page);
  await page.getByRole("button", { name: "切换明暗主题" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-mantine-color-scheme", "dark");
  await shot(page, "settings-system-dark");
  await card(page, "配置 Stripe").screenshot({ path: `${SCREENSHOT_DIR}/settings-system-stripe-dark.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  await openTab(page);
  await expectFits(page, 390);
  await shot(page, "settings-system-narrow");
  // The full page is too tall to read at once: the busiest cards one by one.
  for (const name of ["监控指标", "支付设置", "配置 Stripe", "配置登录注册", "配置邮箱域名白名单", "配置 GitHub OAuth App"]) {
    await card(page, name).screenshot({ path: `${SCREENSHOT_DIR}/settings-system-narrow-${name.replace(/\s+/g, "-")}.png` });
  }
});
