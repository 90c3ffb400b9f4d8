// The system tab's login and registration switches, set the way the tab sets them (PUT /api/option/
// as root), each changing what its consumer does: sign-in, registration, e-mail verification,
// Turnstile, and the third-party login buttons the status object turns on.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import * as login from "@/app/api/user/login/route";
import * as option from "@/app/api/option/route";
import * as register from "@/app/api/user/register/route";
import * as status from "@/app/api/status/route";
import { TURNSTILE_FAILED } from "@/lib/auth/turnstile";
import { call, createUser } from "@/tests/helpers/api";

let root: { id: number; cookie: string };
let n = 0;
const ip = () => `198.51.100.${++n}`;

const put = async (key: string, value: string) => {
  const res = await call(option.PUT, "PUT", "/api/option/", { as: root, body: { key, value } });
  return res.json;
};
const set = async (key: string, value: string) => expect(await put(key, value)).toMatchObject({ success: true });

const signIn = async () =>
  (await call(login.POST, "POST", "/api/user/login", { body: { username: "sys-user", password: "password123" }, ip: ip() })).json;
const signUp = async (body: Record<string, string> = {}) => {
  const username = `sys${n}x${Math.floor(Math.random() * 1e4)}`;
  return (
    await call(register.POST, "POST", "/api/user/register", {
      body: { username, password: "password123", password2: "password123", ...body },
      ip: ip(),
    })
  ).json;
};
const siteStatus = async () => (await call(status.GET, "GET", "/api/status")).json.data as Record<string, unknown>;

beforeAll(async () => {
  root = await createUser({ username: "sys-root", role: 100 });
  await createUser({ username: "sys-user", password: "password123" });
});

const RESET: Array<[string, string]> = [
  ["PasswordLoginEnabled", "true"],
  ["PasswordRegisterEnabled", "true"],
  ["RegisterEnabled", "true"],
  ["EmailVerificationEnabled", "false"],
  ["TurnstileCheckEnabled", "false"],
  ["GitHubOAuthEnabled", "false"],
  ["LinuxDOOAuthEnabled", "false"],
  ["WeChatAuthEnabled", "false"],
  ["TelegramOAuthEnabled", "false"],
];
afterEach(async () => {
  for (const [key, value] of RESET) await set(key, value);
});

describe("login and registration switches", () => {
  it("PasswordLoginEnabled: off refuses password sign-in, on allows it again", async () => {
    expect((await signIn()).success).toBe(true);
    await set("PasswordLoginEnabled", "false");
    expect(await signIn()).toEqual({ success: false, message: "管理员关闭了密码登录" });
    expect((await siteStatus()).password_login_enabled).toBe(false);
    await set("PasswordLoginEnabled", "true");
    expect((await signIn()).success).toBe(true);
  });

  it("RegisterEnabled and PasswordRegisterEnabled: off refuses registration", async () => {
    expect((await signUp()).success).toBe(true);
    await set("RegisterEnabled", "false");
    expect(await signUp()).toEqual({ success: false, message: "管理员关闭了新用户注册" });
    expect((await siteStatus()).register_enabled).toBe(false);
    await set("RegisterEnabled", "true");
    await set("PasswordRegisterEnabled", "false");
    expect(await signUp()).toEqual({ success: false, message: "管理员关闭了通过密码进行注册，请使用第三方账户验证的形式进行注册" });
    expect((await siteStatus()).password_register_enabled).toBe(false);
    await set("PasswordRegisterEnabled", "true");
    expect((await signUp()).success).toBe(true);
  });

  it("EmailVerificationEnabled: needs SMTP first, then registration asks for an e-mail and its code", async () => {
    await set("SMTPServer", "");
    expect(await put("EmailVerificationEnabled", "true")).toEqual({
      success: false,
      message: "无法启用邮箱验证，请先填入 SMTP 服务器等邮件配置信息！",
    });
    expect((await signUp()).success).toBe(true);
    await set("SMTPServer", "smtp.example.com");
    try {
      await set("EmailVerificationEnabled", "true");
      expect(await signUp()).toEqual({ success: false, message: "管理员开启了邮箱验证，请输入邮箱地址和验证码" });
      expect(await signUp({ email: "a@example.com", verification_code: "123456" })).toEqual({
        success: false,
        message: "验证码错误或已过期",
      });
      expect((await siteStatus()).email_verification).toBe(true);
    } finally {
      await set("EmailVerificationEnabled", "false");
      await set("SMTPServer", "");
    }
  });

  it("TurnstileCheckEnabled: needs both keys, then sign-in without a Turnstile token is refused", async () => {
    expect((await put("TurnstileCheckEnabled", "true")).message).toBe(
      "无法启用 Turnstile 校验，请先填入 Turnstile Site Key 以及 Secret Key！",
    );
    await set("TurnstileSiteKey", "sys-site-key");
    await set("TurnstileSecretKey", "sys-secret-key");
    try {
      await set("TurnstileCheckEnabled", "true");
      expect(await signIn()).toEqual({ success: false, message: TURNSTILE_FAILED });
      expect(await siteStatus()).toMatchObject({ turnstile_check: true, turnstile_site_key: "sys-site-key" });
      await set("TurnstileCheckEnabled", "false");
      expect((await signIn()).success).toBe(true);
    } finally {
      await set("TurnstileSiteKey", "");
      await set("TurnstileSecretKey", "");
    }
  });

  it.each([
    [
      "GitHubOAuthEnabled",
      "github_oauth",
      [
        ["GitHubClientId", "Iv1.sys"],
        ["GitHubClientSecret", "gh-sys-secret"],
      ],
      "GitHub",
    ],
    [
      "LinuxDOOAuthEnabled",
      "linuxdo_oauth",
      [
        ["LinuxDOClientId", "ld-sys"],
        ["LinuxDOClientSecret", "ld-sys-secret"],
      ],
      "LinuxDO",
    ],
    [
      "oidc.enabled",
      "oidc_enabled",
      [
        ["oidc.client_id", "qiao-sys"],
        ["oidc.client_secret", "oidc-sys-secret"],
        ["oidc.well_known", "https://idp.example.com/.well-known/openid-configuration"],
      ],
      "OIDC",
    ],
    [
      "WeChatAuthEnabled",
      "wechat_login",
      [
        ["WeChatServerAddress", "https://wechat.example.com"],
        ["WeChatServerToken", "wx-token"],
      ],
      "微信",
    ],
    [
      "TelegramOAuthEnabled",
      "telegram_oauth",
      [
        ["TelegramBotToken", "123:tg-token"],
        ["TelegramBotName", "qiao_bot"],
      ],
      "Telegram",
    ],
  ] as const)("%s: refused until its settings are saved; saved, the login button shows (%s)", async (key, flag, needs, name) => {
    const refused = await put(key, "true");
    expect(refused.success).toBe(false);
    expect(refused.message).toContain(name);
    expect((await siteStatus())[flag]).toBe(false);
    for (const [k, v] of needs) await set(k, v);
    try {
      await set(key, "true");
      const shown = await siteStatus();
      expect(shown[flag]).toBe(true);
      // Secrets stay on the server; the status carries only the public parts.
      expect(JSON.stringify(shown)).not.toContain(needs.find(([k]) => /(Secret|secret|Token)$/.test(k))![1]);
    } finally {
      await set(key, "false");
      for (const [k] of needs) await set(k, "");
    }
  });
});
