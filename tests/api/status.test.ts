// The public status object, the public content calls, and the channel-type model map.
import bcrypt from "bcryptjs";
import { beforeAll, describe, expect, it } from "vitest";
import packageJson from "@/package.json";
import * as statusRoute from "@/app/api/status/route";
import * as noticeRoute from "@/app/api/notice/route";
import * as aboutRoute from "@/app/api/about/route";
import * as homeRoute from "@/app/api/home_page_content/route";
import * as modelsRoute from "@/app/api/models/route";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { invalidateRootDefaultPassword } from "@/lib/status/site-status";
import { DEFAULT_ROOT } from "@/lib/users/root-account";
import { call, createUser } from "@/tests/helpers/api";

const status = async () => {
  const res = await call(statusRoute.GET, "GET", "/api/status");
  expect(res.status).toBe(200);
  expect(res.json.success).toBe(true);
  return res;
};

describe("GET /api/status", () => {
  it("carries every field of the spec's login status object, with the right types, to anonymous callers", async () => {
    const { json } = await status();
    const expected: Record<string, string> = {
      system_name: "string",
      logo: "string",
      footer_html: "string",
      quota_per_unit: "number",
      display_in_currency: "boolean",
      enable_drawing: "boolean",
      enable_task: "boolean",
      enable_data_export: "boolean",
      data_export_default_time: "string",
      default_collapse_sidebar: "boolean",
      mj_notify_enabled: "boolean",
      chat_link: "string",
      chat_link2: "string",
      turnstile_check: "boolean",
      turnstile_site_key: "string",
      github_oauth: "boolean",
      github_client_id: "string",
      linuxdo_oauth: "boolean",
      linuxdo_client_id: "string",
      wechat_login: "boolean",
      wechat_qrcode: "string",
      telegram_oauth: "boolean",
      telegram_bot_name: "string",
      email_verification: "boolean",
      server_address: "string",
      top_up_link: "string",
      min_topup: "number",
      enable_online_topup: "boolean",
      // beyond the spec's list
      version: "string",
      start_time: "number",
      price: "number",
      display_token_stat: "boolean",
      register_enabled: "boolean",
      password_login_enabled: "boolean",
      password_register_enabled: "boolean",
      root_default_password: "boolean",
    };
    for (const [field, type] of Object.entries(expected)) expect(typeof json.data[field], field).toBe(type);
    expect(Array.isArray(json.data.chats)).toBe(true);
    expect(json.data.chats[0]).toEqual({ "ChatGPT Next Web 官方示例": expect.stringContaining("{key}") });
  });

  it("reports the defaults", async () => {
    const { json } = await status();
    expect(json.data).toMatchObject({
      version: packageJson.version,
      system_name: "Qiao",
      logo: "/logo.png",
      quota_per_unit: 500000,
      display_in_currency: true,
      // Off until their pages exist (issue 20.16).
      enable_drawing: false,
      enable_task: false,
      enable_data_export: true,
      data_export_default_time: "hour",
      price: 7.3,
      min_topup: 1,
      enable_online_topup: false,
      register_enabled: true,
      password_login_enabled: true,
      password_register_enabled: true,
      github_oauth: false,
      turnstile_check: false,
    });
    const now = Math.floor(Date.now() / 1000);
    expect(json.data.start_time).toBeGreaterThan(now - 3600);
    expect(json.data.start_time).toBeLessThanOrEqual(now);
  });

  it("follows option changes, and counts online top-up as enabled only with PayAddress, EpayId and EpayKey", async () => {
    await updateOption("SystemName", "桥网关");
    await updateOption("TurnstileSiteKey", "0x4AAA-site");
    await updateOption("TurnstileSecretKey", "0x4AAA-secret-value");
    await updateOption("TurnstileCheckEnabled", "true");
    await updateOption("PayAddress", "https://pay.example.com/");
    await updateOption("EpayId", "1001");
    expect((await status()).json.data.enable_online_topup).toBe(false);
    await updateOption("EpayKey", "epay-merchant-key");
    const res = await status();
    expect(res.json.data).toMatchObject({
      system_name: "桥网关",
      turnstile_check: true,
      turnstile_site_key: "0x4AAA-site",
      enable_online_topup: true,
    });
    // Secrets never leave the server, not even through the status object.
    expect(res.text).not.toContain("0x4AAA-secret-value");
    expect(res.text).not.toContain("epay-merchant-key");
    for (const [k, v] of [
      ["TurnstileCheckEnabled", "false"],
      ["EpayKey", ""],
      ["EpayId", ""],
      ["PayAddress", ""],
      ["SystemName", "Qiao"],
    ])
      await updateOption(k!, v!);
  });

  it("says whether root still has the default password, and updates once the password changes", async () => {
    const db = await getDb();
    expect((await status()).json.data.root_default_password).toBe(true);
    await db.user.update({
      where: { username: DEFAULT_ROOT.username },
      data: { password: await bcrypt.hash("a-much-better-password", 4) },
    });
    // Cached: a change made without telling the status module is not seen yet.
    expect((await status()).json.data.root_default_password).toBe(true);
    invalidateRootDefaultPassword();
    expect((await status()).json.data.root_default_password).toBe(false);
    await db.user.update({ where: { username: DEFAULT_ROOT.username }, data: { password: await bcrypt.hash(DEFAULT_ROOT.password, 4) } });
    invalidateRootDefaultPassword();
    expect((await status()).json.data.root_default_password).toBe(true);
  });
});

describe("GET /api/notice, /api/about, /api/home_page_content", () => {
  it.each([
    [noticeRoute, "/api/notice", "Notice"],
    [aboutRoute, "/api/about", "About"],
    [homeRoute, "/api/home_page_content", "HomePageContent"],
  ] as const)("%#: returns the raw option text to anyone", async (mod, path, key) => {
    expect((await call(mod.GET, "GET", path)).json).toEqual({ success: true, message: "", data: "" });
    const content = `# ${key}\n\n<b>保持原样</b>  \n`;
    await updateOption(key, content);
    expect((await call(mod.GET, "GET", path)).json).toEqual({ success: true, message: "", data: content });
    await updateOption(key, "");
  });
});

describe("GET /api/models", () => {
  let user: { id: number; cookie: string };
  beforeAll(async () => {
    user = await createUser({ username: "modelsuser" });
  });

  it("maps every channel type of the spec, plus DeepSeek and xAI, to its default models", async () => {
    const res = await call(modelsRoute.GET, "GET", "/api/models", { as: user });
    expect(res.json.success).toBe(true);
    const data = res.json.data as Record<string, string[]>;
    const specTypes = [
      1, 2, 3, 4, 5, 8, 11, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 31, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 48,
    ];
    expect(
      Object.keys(data)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual(specTypes);
    for (const type of specTypes) expect(Array.isArray(data[type]), String(type)).toBe(true);
    expect(data[1]).toContain("gpt-4o-mini");
    expect(data[3]).toContain("gpt-4o");
    expect(data[14]).toContain("claude-3-5-sonnet-20241022");
    expect(data[33]).toContain("claude-3-5-sonnet-20241022");
    expect(data[24]).toContain("gemini-1.5-pro-latest");
    expect(data[15]).toContain("ERNIE-4.0-8K");
    expect(data[2]).toContain("mj_imagine");
    expect(data[5]).toContain("swap_face");
    expect(data[36]).toEqual(["suno_music", "suno_lyrics"]);
    expect(data[37]).toEqual([]);
    expect(data[43]).toEqual(["deepseek-chat", "deepseek-reasoner"]);
    expect(data[48]).toContain("grok-2");
    expect(data[42]).toContain("mistral-large-latest");
  });

  it("needs a logged-in user", async () => {
    expect((await call(modelsRoute.GET, "GET", "/api/models")).status).toBe(401);
  });
});
