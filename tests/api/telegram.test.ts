// Telegram Login Widget payloads, signed in the test as Telegram signs them (tests/mocks/telegram.ts):
// GET /api/oauth/telegram/login signs in the bound account, GET /api/oauth/telegram/bind binds (a
// console call, or the widget's own redirect from one of our pages, which goes back to /setting).
// Every refusal: a forged hash, a field added after signing, a stale or future auth_date, a replay
// (also two at once), an unbound account, an id bound elsewhere, a redirect another site started.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as login from "@/app/api/oauth/telegram/login/route";
import * as bind from "@/app/api/oauth/telegram/bind/route";
import * as statusRoute from "@/app/api/status/route";
import { TELEGRAM_CLOCK_SKEW_SECONDS, TELEGRAM_MAX_AGE_SECONDS, TELEGRAM_MSG } from "@/lib/accounts/telegram";
import { BANNED_MESSAGE } from "@/lib/auth/authenticate";
import { NAVIGATION_MSG } from "@/lib/auth/navigation";
import { PENDING_2FA_COOKIE, SIGN_IN_MSG } from "@/lib/auth/sign-in";
import { SESSION_COOKIE } from "@/lib/auth/session";
import { getDb } from "@/lib/db";
import { env } from "@/lib/env";
import { updateOption } from "@/lib/options";
import { call, cookieFrom, createUser } from "@/tests/helpers/api";
import { signTelegramFields, telegramLogin } from "@/tests/mocks/telegram";

const BOT_TOKEN = "7001234567:AAH-test-bot-token-for-qiao";
let seq = 0;
const freshIp = () => `203.0.${Math.floor(++seq / 250)}.${seq % 250}`;
const tgId = () => String(5_000_000_000 + (Date.now() % 1_000_000) + ++seq * 7);
const now = () => Math.floor(Date.now() / 1000);
const account = (id: string) => ({
  id,
  first_name: "Ada",
  last_name: "Lovelace",
  username: "ada_l",
  photo_url: "https://t.me/i/userpic/320/ada.jpg",
});

const query = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const signIn = (fields: Record<string, string>, headers?: Record<string, string>) =>
  call(login.GET, "GET", `/api/oauth/telegram/login?${query(fields)}`, { ip: freshIp(), headers });
const bindAs = (as: { id: number; cookie: string }, fields: Record<string, string>) =>
  call(bind.GET, "GET", `/api/oauth/telegram/bind?${query(fields)}`, { as, ip: freshIp() });
/** The widget's redirect: a navigation with only the cookie (no New-Api-User). */
const bindByRedirect = (cookie: string, fields: Record<string, string>, site: string | null) =>
  call(bind.GET, "GET", `/api/oauth/telegram/bind?${query(fields)}`, {
    cookie,
    ip: freshIp(),
    headers: { "sec-fetch-mode": "navigate", ...(site ? { "sec-fetch-site": site } : {}) },
  });

async function boundUser(username: string, id = tgId(), status = 1) {
  const u = await createUser({ username, status });
  await (await getDb()).user.update({ where: { id: u.id }, data: { telegram_id: id } });
  return { ...u, telegramId: id };
}
const telegramIdOf = async (userId: number) => (await (await getDb()).user.findUniqueOrThrow({ where: { id: userId } })).telegram_id;

beforeAll(async () => {
  await updateOption("TelegramBotToken", BOT_TOKEN);
  await updateOption("TelegramBotName", "qiao_test_bot");
  await updateOption("TelegramOAuthEnabled", "true");
});
afterAll(async () => {
  await updateOption("TelegramOAuthEnabled", "false");
});

describe("GET /api/oauth/telegram/login", () => {
  it("signs in the account a correctly signed payload's Telegram id is bound to", async () => {
    const u = await boundUser("tg-login");
    const res = await signIn(telegramLogin(BOT_TOKEN, account(u.telegramId)));
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ success: true, message: "", data: { id: u.id, username: "tg-login", telegram_id: u.telegramId } });
    expect(res.headers.get("set-cookie")).toContain(`${SESSION_COOKIE}=`);
    const sessions = await (await getDb()).userSession.findMany({
      where: { user_id: u.id },
      select: { method: true },
      orderBy: { created_at: "asc" },
    });
    expect(sessions.map((s) => s.method)).toContain("telegram");
  });

  it("refuses a hash made with another bot's token, and a valid payload whose field was changed", async () => {
    const u = await boundUser("tg-forged");
    const forged = await signIn(telegramLogin("7009999999:another-bot-token", account(u.telegramId)));
    expect(forged.status).toBe(400);
    expect(forged.json).toEqual({ success: false, message: TELEGRAM_MSG.invalid });
    const changed = { ...telegramLogin(BOT_TOKEN, account(tgId())), id: u.telegramId };
    expect((await signIn(changed)).json).toEqual({ success: false, message: TELEGRAM_MSG.invalid });
    expect(forged.headers.get("set-cookie")).toBeNull();
  });

  it("counts every field: a signed extra one (lang) passes, one added after signing fails", async () => {
    const u = await boundUser("tg-extra");
    const withLang = signTelegramFields(BOT_TOKEN, { ...account(u.telegramId), auth_date: now(), lang: "zh" });
    expect((await signIn(withLang)).json).toMatchObject({ success: true, data: { id: u.id } });
    const added = { ...telegramLogin(BOT_TOKEN, account(u.telegramId)), lang: "en" };
    expect((await signIn(added)).json).toEqual({ success: false, message: TELEGRAM_MSG.invalid });
    // A repeated field is not the widget's either.
    const fields = telegramLogin(BOT_TOKEN, account(u.telegramId));
    const repeated = await call(login.GET, "GET", `/api/oauth/telegram/login?${query(fields)}&id=${u.telegramId}`, { ip: freshIp() });
    expect(repeated.json).toEqual({ success: false, message: TELEGRAM_MSG.invalid });
  });

  it("refuses an auth_date older than a day, and one ahead of our clock beyond the skew", async () => {
    const u = await boundUser("tg-dates");
    const stale = await signIn(telegramLogin(BOT_TOKEN, account(u.telegramId), now() - TELEGRAM_MAX_AGE_SECONDS - 5));
    expect(stale.json).toEqual({ success: false, message: TELEGRAM_MSG.stale });
    const future = await signIn(telegramLogin(BOT_TOKEN, account(u.telegramId), now() + TELEGRAM_CLOCK_SKEW_SECONDS + 600));
    expect(future.json).toEqual({ success: false, message: TELEGRAM_MSG.future });
    // Almost a day old, and a little ahead, are fine.
    expect((await signIn(telegramLogin(BOT_TOKEN, account(u.telegramId), now() - TELEGRAM_MAX_AGE_SECONDS + 60))).json.success).toBe(true);
    expect((await signIn(telegramLogin(BOT_TOKEN, account(u.telegramId), now() + 20))).json.success).toBe(true);
  });

  it("takes a payload once, also when two arrive at the same moment", async () => {
    const u = await boundUser("tg-replay");
    const fields = telegramLogin(BOT_TOKEN, account(u.telegramId));
    expect((await signIn(fields)).json.success).toBe(true);
    expect((await signIn(fields)).json).toEqual({ success: false, message: TELEGRAM_MSG.replayed });

    // Another payload of the same account: an auth_date the first one cannot have had, even when a
    // second or more passed on a loaded machine since it was signed.
    const twice = telegramLogin(BOT_TOKEN, account(u.telegramId), now() - 600);
    const results = await Promise.all([signIn(twice), signIn(twice)]);
    expect(results.map((r) => r.json.success).sort()).toEqual([false, true]);
    expect(results.find((r) => !r.json.success)?.json.message).toBe(TELEGRAM_MSG.replayed);
  });

  it("signs no one in for an unbound Telegram account (no sign-up), nor for a disabled account", async () => {
    const before = await (await getDb()).user.count();
    const unbound = await signIn(telegramLogin(BOT_TOKEN, account(tgId())));
    expect(unbound.json).toEqual({ success: false, message: TELEGRAM_MSG.unbound });
    expect(await (await getDb()).user.count()).toBe(before);
    const banned = await boundUser("tg-banned", tgId(), 2);
    const refused = await signIn(telegramLogin(BOT_TOKEN, account(banned.telegramId)));
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ success: false, message: BANNED_MESSAGE });
  });

  it("asks for the second factor of an account with two-factor on", async () => {
    const u = await boundUser("tg-2fa");
    await (await getDb()).twoFactor.create({ data: { user_id: u.id, secret_enc: "sealed", enabled: true, created_at: 1 } });
    const res = await signIn(telegramLogin(BOT_TOKEN, account(u.telegramId)));
    expect(res.json).toEqual({ success: true, message: SIGN_IN_MSG.needCode, data: { require_2fa: true } });
    expect(cookieFrom(res.headers.get("set-cookie"))).toMatch(new RegExp(`^${PENDING_2FA_COOKIE}=.+`));
  });

  it("refuses a sign-in another site started, and everything while Telegram sign-in is off", async () => {
    const u = await boundUser("tg-off");
    const crossSite = await signIn(telegramLogin(BOT_TOKEN, account(u.telegramId)), { "sec-fetch-site": "cross-site" });
    expect(crossSite.status).toBe(403);
    expect(crossSite.json).toEqual({ success: false, message: NAVIGATION_MSG.crossSite });

    const status = await call(statusRoute.GET, "GET", "/api/status");
    expect(status.json.data).toMatchObject({
      telegram_oauth: true,
      telegram_bot_name: "qiao_test_bot",
      telegram_widget_url: env.TELEGRAM_WIDGET_URL,
    });
    expect(JSON.stringify(status.json.data)).not.toContain(BOT_TOKEN);
    await updateOption("TelegramOAuthEnabled", "false");
    try {
      const off = await signIn(telegramLogin(BOT_TOKEN, account(u.telegramId)));
      expect(off.status).toBe(403);
      expect(off.json).toEqual({ success: false, message: TELEGRAM_MSG.disabled });
      expect((await bindAs(u, telegramLogin(BOT_TOKEN, account(tgId())))).json.message).toBe(TELEGRAM_MSG.disabled);
    } finally {
      await updateOption("TelegramOAuthEnabled", "true");
    }
  });
});

describe("GET /api/oauth/telegram/bind", () => {
  it("binds the payload's Telegram account to the console's caller, which then signs in with it", async () => {
    const u = await createUser({ username: "tg-binder" });
    const id = tgId();
    const res = await bindAs(u, telegramLogin(BOT_TOKEN, account(id)));
    expect(res.json).toEqual({ success: true, message: TELEGRAM_MSG.bound, data: null });
    expect(await telegramIdOf(u.id)).toBe(id);
    // A later authorization (another auth_date, so another hash) signs in to it.
    expect((await signIn(telegramLogin(BOT_TOKEN, account(id), now() - 2))).json).toMatchObject({ success: true, data: { id: u.id } });
  });

  it("refuses a Telegram account bound to another account, and a forged or replayed payload", async () => {
    const owner = await boundUser("tg-owner");
    const taker = await createUser({ username: "tg-taker" });
    expect((await bindAs(taker, telegramLogin(BOT_TOKEN, account(owner.telegramId)))).json).toEqual({
      success: false,
      message: TELEGRAM_MSG.taken,
    });
    expect((await bindAs(taker, telegramLogin("1:forged", account(tgId())))).json.message).toBe(TELEGRAM_MSG.invalid);
    const once = telegramLogin(BOT_TOKEN, account(tgId()));
    await signIn(once); // unbound, but the payload is spent
    expect((await bindAs(taker, once)).json.message).toBe(TELEGRAM_MSG.replayed);
    expect(await telegramIdOf(taker.id)).toBe("");
  });

  it("as the widget's redirect from our own page, binds and goes back to personal settings", async () => {
    const u = await createUser({ username: "tg-redirect" });
    const id = tgId();
    const res = await bindByRedirect(u.cookie, telegramLogin(BOT_TOKEN, account(id)), "same-origin");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/setting");
    expect(await telegramIdOf(u.id)).toBe(id);
  });

  it("as a redirect another site started (or one that cannot say), binds nothing", async () => {
    const u = await createUser({ username: "tg-csrf" });
    for (const site of ["cross-site", "same-site", null]) {
      const res = await bindByRedirect(u.cookie, telegramLogin(BOT_TOKEN, account(tgId())), site);
      expect(res.status, String(site)).toBe(403);
      expect(res.json).toEqual({ success: false, message: NAVIGATION_MSG.crossSite });
    }
    expect(await telegramIdOf(u.id)).toBe("");
    // A script's call without New-Api-User is refused as every console call is.
    const noHeader = await call(bind.GET, "GET", `/api/oauth/telegram/bind?${query(telegramLogin(BOT_TOKEN, account(tgId())))}`, {
      cookie: u.cookie,
      ip: freshIp(),
    });
    expect(noHeader.status).toBe(401);
    expect(await telegramIdOf(u.id)).toBe("");
  });
});
