// Two-factor (issue 23, "Two-factor (TOTP)"): setup, enable, disable and backup codes on new-api's
// paths; every code good once (a TOTP code within its window, a backup code, also when two
// requests race with one); wrong codes locked out per account and per address; the sign-in's code
// step and its pending cookie; root's reset with its audit row. Codes are computed from the
// secret the setup hands out, on a clock the test moves (only Date is faked: the server reads the
// same clock).
import { SignJWT } from "jose";
import { generate } from "otplib";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import * as backupCodes from "@/app/api/user/2fa/backup_codes/route";
import * as disable from "@/app/api/user/2fa/disable/route";
import * as enable from "@/app/api/user/2fa/enable/route";
import * as setup from "@/app/api/user/2fa/setup/route";
import * as stats from "@/app/api/user/2fa/stats/route";
import * as status from "@/app/api/user/2fa/status/route";
import * as reset from "@/app/api/user/[id]/2fa/route";
import * as login from "@/app/api/user/login/route";
import * as login2fa from "@/app/api/user/login/2fa/route";
import * as self from "@/app/api/user/self/route";
import * as accessToken from "@/app/api/user/token/route";
import * as verify from "@/app/api/verify/route";
import { SIGN_IN_2FA_MSG } from "@/lib/accounts/two-factor-sign-in";
import { BACKUP_CODE_COUNT, TWO_FACTOR_MSG } from "@/lib/accounts/two-factor";
import { BANNED_MESSAGE } from "@/lib/auth/authenticate";
import { completeSignIn, PENDING_2FA_COOKIE, SIGN_IN_MSG } from "@/lib/auth/sign-in";
import { STEP_UP_MSG } from "@/lib/auth/step-up";
import { open } from "@/lib/crypto/secret-box";
import { getDb } from "@/lib/db";
import { getDirectDb } from "@/lib/db/direct";
import { env } from "@/lib/env";
import { ADDRESS_FAILURE_FACTOR } from "@/lib/users/auth";
import { call, cookieFrom, createUser, sessionCookieFor } from "@/tests/helpers/api";
import { markVerified, sessionIdOf } from "@/tests/helpers/step-up";

type User = { id: number; username: string; cookie: string };

let seq = 0;
/** A fresh client address per call, so only the limit under test can bite. */
const freshIp = () => `198.51.${Math.floor(++seq / 250)}.${seq % 250}`;

// ---- The clock --------------------------------------------------------------------------------

let clock = 0;
beforeEach(() => {
  // A few seconds into a 30-second step, so a step never turns over under a test.
  clock = Math.floor(Date.now() / 30_000) * 30 + 3;
  vi.useFakeTimers({ toFake: ["Date"], now: clock * 1000 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Moves the clock on by `seconds` (a TOTP step by default). */
function tick(seconds = 30) {
  clock += seconds;
  vi.setSystemTime(clock * 1000);
}

/** The code the authenticator app shows now (or `steps` steps away). */
const codeOf = (secret: string, steps = 0) => generate({ secret, epoch: clock + steps * 30 });

// ---- Helpers ------------------------------------------------------------------------------------

let root: User;
beforeAll(async () => {
  const row = await (await getDb()).user.findUniqueOrThrow({ where: { username: "root" } });
  root = { id: row.id, username: row.username, cookie: await sessionCookieFor(row.id) };
});

const newUser = (prefix: string, role = 1) => createUser({ username: `${prefix}${++seq}`, password: "password123", role });

async function startSetup(u: User) {
  await markVerified(u.cookie);
  const res = await call(setup.POST, "POST", "/api/user/2fa/setup", { as: u });
  expect(res.json.success).toBe(true);
  return res.json.data as { secret: string; qr_code_data: string; qr_code_image: string; backup_codes: string[] };
}

/** A user with two-factor on, its secret and backup codes. The clock has moved past the enabling code. */
async function userWithTwoFactor(prefix: string) {
  const u = await newUser(prefix);
  const data = await startSetup(u);
  const on = await call(enable.POST, "POST", "/api/user/2fa/enable", { as: u, body: { code: await codeOf(data.secret) }, ip: freshIp() });
  expect(on.json).toMatchObject({ success: true, message: TWO_FACTOR_MSG.enabled });
  tick();
  return { ...u, secret: data.secret, backup: data.backup_codes };
}

const statusOf = async (u: User) => (await call(status.GET, "GET", "/api/user/2fa/status", { as: u })).json.data;
const selfWith = (u: { id: number; cookie: string }) => call(self.GET, "GET", "/api/user/self", { as: u });
const stepUpWithCode = (u: User, code: string, ip = freshIp()) =>
  call(verify.POST, "POST", "/api/verify", { as: u, body: { method: "2fa", code }, ip });

async function passwordLogin(username: string, ip = freshIp()) {
  const res = await call(login.POST, "POST", "/api/user/login", { body: { username, password: "password123" }, ip });
  return { res, pending: cookieFrom(res.headers.get("set-cookie")) };
}
const codeStep = (pending: string, code: string, ip = freshIp()) =>
  call(login2fa.POST, "POST", "/api/user/login/2fa", { cookie: pending, body: { code }, ip });

async function rowOf(userId: number) {
  const db = await getDirectDb();
  const [row] = await db.query("SELECT secret_enc, enabled, backup_codes, last_step FROM two_factors WHERE user_id = ?", [userId]);
  return row;
}

// ---- Setup and enabling -------------------------------------------------------------------------

describe("setting up two-factor", () => {
  it("hands out a secret, its otpauth URI and QR code, and ten backup codes; stores the secret sealed and the codes hashed", async () => {
    const u = await newUser("setup");
    const data = await startSetup(u);
    expect(data.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(data.qr_code_data).toBe(`otpauth://totp/Qiao:${u.username}?secret=${data.secret}&issuer=Qiao`);
    expect(data.qr_code_image).toMatch(/^data:image\/png;base64,/);
    expect(data.backup_codes).toHaveLength(BACKUP_CODE_COUNT);
    for (const code of data.backup_codes) expect(code).toMatch(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
    expect(new Set(data.backup_codes).size).toBe(BACKUP_CODE_COUNT);

    const row = await rowOf(u.id);
    expect(String(row!.secret_enc)).not.toContain(data.secret);
    expect(open(String(row!.secret_enc))).toBe(data.secret);
    for (const code of data.backup_codes) {
      expect(String(row!.backup_codes)).not.toContain(code);
      expect(String(row!.backup_codes)).not.toContain(code.replace("-", ""));
    }
    expect(await statusOf(u)).toEqual({ enabled: false, locked: false, backup_codes_remaining: 0 });
  });

  it("needs step-up, and a session: an access token cannot set up", async () => {
    const u = await newUser("setupstep");
    const refused = await call(setup.POST, "POST", "/api/user/2fa/setup", { as: u });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ success: false, message: STEP_UP_MSG.required, data: { step_up: true } });
    expect(await rowOf(u.id)).toBeUndefined();

    await markVerified(u.cookie);
    const token = (await call(accessToken.GET, "GET", "/api/user/token", { as: u })).json.data as string;
    const viaToken = await call(setup.POST, "POST", "/api/user/2fa/setup", { headers: { authorization: token } });
    expect(viaToken.status).toBe(403);
    expect(viaToken.json.message).toBe(STEP_UP_MSG.sessionOnly);
    expect(await rowOf(u.id)).toBeUndefined();
  });

  it("a second setup replaces a pending one; the first secret no longer enables", async () => {
    const u = await newUser("resetup");
    const first = await startSetup(u);
    const second = await startSetup(u);
    expect(second.secret).not.toBe(first.secret);
    const withFirst = await call(enable.POST, "POST", "/api/user/2fa/enable", { as: u, body: { code: await codeOf(first.secret) } });
    expect(withFirst.json).toEqual({ success: false, message: TWO_FACTOR_MSG.wrongTotp });
    const withSecond = await call(enable.POST, "POST", "/api/user/2fa/enable", { as: u, body: { code: await codeOf(second.secret) } });
    expect(withSecond.json.success).toBe(true);
  });

  it("enables with a right TOTP code only, and ends the account's other sessions", async () => {
    const u = await newUser("enable");
    const other = { id: u.id, cookie: await sessionCookieFor(u.id) };
    const data = await startSetup(u);
    const enableWith = (code: string) => call(enable.POST, "POST", "/api/user/2fa/enable", { as: u, body: { code } });

    expect((await enableWith("000000")).json).toEqual({ success: false, message: TWO_FACTOR_MSG.wrongTotp });
    expect((await enableWith(await codeOf(data.secret, 3))).json.success).toBe(false); // outside the window
    expect((await enableWith(data.backup_codes[0]!)).json.success).toBe(false); // the app must be proven
    expect((await enableWith("")).status).toBe(400);
    expect((await statusOf(u)).enabled).toBe(false);
    expect((await selfWith(other)).status).toBe(200);

    const on = await enableWith(await codeOf(data.secret));
    expect(on.json).toEqual({ success: true, message: TWO_FACTOR_MSG.enabled, data: null });
    expect(await statusOf(u)).toEqual({ enabled: true, locked: false, backup_codes_remaining: BACKUP_CODE_COUNT });
    expect((await selfWith(other)).status).toBe(401);
    expect((await selfWith(u)).status).toBe(200);

    tick();
    expect((await enableWith(await codeOf(data.secret))).json).toEqual({ success: false, message: TWO_FACTOR_MSG.alreadyEnabled });
    const again = await call(setup.POST, "POST", "/api/user/2fa/setup", { as: u });
    expect(again.json).toEqual({ success: false, message: TWO_FACTOR_MSG.alreadyEnabled });
  });

  it("enabling without a setup says so; enabling needs step-up too", async () => {
    const u = await newUser("nosetup");
    await markVerified(u.cookie);
    expect((await call(enable.POST, "POST", "/api/user/2fa/enable", { as: u, body: { code: "123456" } })).json).toEqual({
      success: false,
      message: TWO_FACTOR_MSG.notSetUp,
    });
    const data = await startSetup(u);
    await markVerified(u.cookie, clock - 301);
    const refused = await call(enable.POST, "POST", "/api/user/2fa/enable", { as: u, body: { code: await codeOf(data.secret) } });
    expect(refused.json.data).toEqual({ step_up: true });
    expect((await statusOf(u)).enabled).toBe(false);
  });
});

// ---- Every code good once -------------------------------------------------------------------------

describe("a code is good once", () => {
  it("a TOTP code cannot be used twice within its window, nor an earlier one after a later", async () => {
    const u = await userWithTwoFactor("replay");
    const now = await codeOf(u.secret);
    expect((await stepUpWithCode(u, now)).json.success).toBe(true);
    expect((await stepUpWithCode(u, now)).json).toEqual({ success: false, message: TWO_FACTOR_MSG.wrongCode });
    // The next step's code is good (clock drift), after which the current one is behind it.
    expect((await stepUpWithCode(u, await codeOf(u.secret, 1))).json.success).toBe(true);
    expect((await stepUpWithCode(u, await codeOf(u.secret, -1))).json.success).toBe(false);
    tick(60);
    expect((await stepUpWithCode(u, await codeOf(u.secret))).json.success).toBe(true);
  });

  it("the code that enabled two-factor cannot sign in", async () => {
    const u = await newUser("enablereplay");
    const data = await startSetup(u);
    const code = await codeOf(data.secret);
    expect((await call(enable.POST, "POST", "/api/user/2fa/enable", { as: u, body: { code } })).json.success).toBe(true);
    const { pending } = await passwordLogin(u.username);
    expect((await codeStep(pending, code)).json).toEqual({ success: false, message: TWO_FACTOR_MSG.wrongCode });
  });

  // Across instances and on every database: tests/api/two-factor-race.test.ts.
  it("of two requests racing with one TOTP code, exactly one passes", async () => {
    const u = await userWithTwoFactor("race");
    const code = await codeOf(u.secret);
    const [a, b] = await Promise.all([stepUpWithCode(u, code), stepUpWithCode(u, code)]);
    expect([a.json.success, b.json.success].sort()).toEqual([false, true]);

    // The same on the sign-in's code step, with two pending sign-ins.
    tick();
    const [first, second] = [(await passwordLogin(u.username)).pending, (await passwordLogin(u.username)).pending];
    const next = await codeOf(u.secret);
    const raced = await Promise.all([codeStep(first, next), codeStep(second, next)]);
    expect(raced.map((r) => r.json.success).sort()).toEqual([false, true]);
    expect(
      raced.filter((r) => r.headers.getSetCookie().some((c) => c.startsWith("qiao_session=") && !c.startsWith("qiao_session=;"))),
    ).toHaveLength(1);
  });

  it("a backup code works once, typed in any case and with or without its dash", async () => {
    const u = await userWithTwoFactor("backup");
    const [first, second] = u.backup;
    const { pending } = await passwordLogin(u.username);
    const ok = await codeStep(pending, first!.toLowerCase().replace("-", ""));
    expect(ok.json).toMatchObject({ success: true, data: { id: u.id, username: u.username } });
    expect((await statusOf(u)).backup_codes_remaining).toBe(BACKUP_CODE_COUNT - 1);

    const again = await passwordLogin(u.username);
    expect((await codeStep(again.pending, first!)).json).toEqual({ success: false, message: TWO_FACTOR_MSG.wrongCode });
    expect((await codeStep(again.pending, ` ${second} `)).json.success).toBe(true);
    expect((await statusOf(u)).backup_codes_remaining).toBe(BACKUP_CODE_COUNT - 2);
  });

  it("of two requests racing with one backup code, exactly one passes; two different codes both pass", async () => {
    const u = await userWithTwoFactor("backuprace");
    const [one, two, three] = u.backup;
    const same = await Promise.all([stepUpWithCode(u, one!), stepUpWithCode(u, one!)]);
    expect(same.map((r) => r.json.success).sort()).toEqual([false, true]);
    const different = await Promise.all([stepUpWithCode(u, two!), stepUpWithCode(u, three!)]);
    expect(different.map((r) => r.json.success)).toEqual([true, true]);
    expect((await statusOf(u)).backup_codes_remaining).toBe(BACKUP_CODE_COUNT - 3);
  });
});

// ---- Wrong guesses --------------------------------------------------------------------------------

describe("wrong codes are limited", () => {
  it(`after ${env.LOGIN_FAILURE_LIMIT} wrong codes the account refuses every code, a right one too, from any address`, async () => {
    const u = await userWithTwoFactor("guess");
    for (let i = 0; i < env.LOGIN_FAILURE_LIMIT; i++) {
      expect((await stepUpWithCode(u, String(100000 + i))).json.message).toBe(TWO_FACTOR_MSG.wrongCode);
    }
    const right = await stepUpWithCode(u, await codeOf(u.secret));
    expect(right.status).toBe(429);
    expect(right.json).toEqual({ success: false, message: TWO_FACTOR_MSG.tooMany });
    const { pending } = await passwordLogin(u.username);
    expect((await codeStep(pending, u.backup[0]!)).status).toBe(429);
    expect((await statusOf(u)).locked).toBe(true);
    // Once the window has moved on, the right code works again.
    tick(env.CRITICAL_RATE_LIMIT_DURATION + 30);
    expect((await stepUpWithCode(u, await codeOf(u.secret))).json.success).toBe(true);
    expect((await statusOf(u)).locked).toBe(false);
  });

  it("one address guessing across accounts is stopped, even for another account's right code", async () => {
    const ip = "203.0.113.77";
    // Each account stays under its own limit, so only the address count can bite.
    const perAccount = env.LOGIN_FAILURE_LIMIT - 1;
    const total = env.LOGIN_FAILURE_LIMIT * ADDRESS_FAILURE_FACTOR;
    const victims = [];
    for (let i = 0; i < Math.ceil(total / perAccount); i++) victims.push(await userWithTwoFactor("spray"));
    for (let i = 0; i < total; i++) {
      const victim = victims[Math.floor(i / perAccount)]!;
      expect((await stepUpWithCode(victim, String(200000 + i), ip)).json.message).toBe(TWO_FACTOR_MSG.wrongCode);
    }
    const fresh = await userWithTwoFactor("sprayed");
    expect((await stepUpWithCode(fresh, await codeOf(fresh.secret), ip)).status).toBe(429);
    expect((await stepUpWithCode(fresh, await codeOf(fresh.secret))).json.success).toBe(true); // from elsewhere it works
  });
});

// ---- Disable and regenerate ----------------------------------------------------------------------

describe("switching off and new backup codes", () => {
  it("disable takes a TOTP or backup code, deletes the secret and ends the other sessions", async () => {
    const u = await userWithTwoFactor("off");
    const other = { id: u.id, cookie: await sessionCookieFor(u.id) };
    const off = (code: string) => call(disable.POST, "POST", "/api/user/2fa/disable", { as: u, body: { code }, ip: freshIp() });
    expect((await off("999999")).json).toEqual({ success: false, message: TWO_FACTOR_MSG.wrongCode });
    expect((await statusOf(u)).enabled).toBe(true);
    expect((await selfWith(other)).status).toBe(200);

    // The code is the step-up: no other verification is asked for, and the session counts as verified.
    await markVerified(u.cookie, 0);
    expect((await off(u.backup[4]!)).json).toEqual({ success: true, message: TWO_FACTOR_MSG.disabled, data: null });
    expect(await rowOf(u.id)).toBeUndefined();
    expect((await selfWith(other)).status).toBe(401);
    expect((await call(accessToken.GET, "GET", "/api/user/token", { as: u })).json.success).toBe(true);

    expect((await off(await codeOf(u.secret))).json).toEqual({ success: false, message: TWO_FACTOR_MSG.notEnabled });
    const { res } = await passwordLogin(u.username);
    expect(res.json).toMatchObject({ success: true, data: { id: u.id } });
  });

  it("regenerating hands out ten new codes: the old ones stop working, the new ones work", async () => {
    const u = await userWithTwoFactor("regen");
    const other = { id: u.id, cookie: await sessionCookieFor(u.id) };
    const res = await call(backupCodes.POST, "POST", "/api/user/2fa/backup_codes", { as: u, body: { code: await codeOf(u.secret) } });
    expect(res.json).toMatchObject({ success: true, message: TWO_FACTOR_MSG.regenerated });
    const fresh = res.json.data.backup_codes as string[];
    expect(fresh).toHaveLength(BACKUP_CODE_COUNT);
    expect(fresh.filter((c) => u.backup.includes(c))).toEqual([]);
    expect((await selfWith(other)).status).toBe(401);

    expect((await stepUpWithCode(u, u.backup[1]!)).json.success).toBe(false);
    expect((await stepUpWithCode(u, fresh[1]!)).json.success).toBe(true);
    const wrong = await call(backupCodes.POST, "POST", "/api/user/2fa/backup_codes", { as: u, body: { code: "111111" } });
    expect(wrong.json).toEqual({ success: false, message: TWO_FACTOR_MSG.wrongCode });
  });
});

// ---- The sign-in's code step ---------------------------------------------------------------------

describe("signing in with two-factor", () => {
  it("the password gives require_2fa and a pending cookie, not a session; the code gives the session", async () => {
    const u = await userWithTwoFactor("signin");
    const { res, pending } = await passwordLogin(u.username);
    expect(res.json).toEqual({ success: true, message: SIGN_IN_MSG.needCode, data: { require_2fa: true } });
    expect(pending.startsWith(`${PENDING_2FA_COOKIE}=`)).toBe(true);
    expect(res.headers.getSetCookie().some((c) => c.startsWith("qiao_session="))).toBe(false);
    // The pending cookie is no session.
    expect((await call(self.GET, "GET", "/api/user/self", { cookie: pending, userHeader: String(u.id) })).status).toBe(401);

    const done = await codeStep(pending, await codeOf(u.secret));
    expect(done.json).toMatchObject({ success: true, message: "", data: { id: u.id, username: u.username, role: 1 } });
    const cookies = done.headers.getSetCookie();
    const session = cookies.find((c) => c.startsWith("qiao_session="))!;
    expect(cookies.find((c) => c.startsWith(`${PENDING_2FA_COOKIE}=`))).toMatch(/Max-Age=0/);
    const signedIn = { id: u.id, cookie: cookieFrom(session) };
    expect((await selfWith(signedIn)).json.data.username).toBe(u.username);

    // Both factors were just proven: the session may step up at once.
    expect((await call(accessToken.GET, "GET", "/api/user/token", { as: signedIn })).json.success).toBe(true);
    const db = await getDirectDb();
    const [row] = await db.query("SELECT method, verified_at FROM user_sessions WHERE id = ?", [await sessionIdOf(signedIn.cookie)]);
    expect(row).toMatchObject({ method: "password" });
    expect(Number(row!.verified_at)).toBe(clock);
  });

  it("refuses a missing, forged or expired pending cookie", async () => {
    const u = await userWithTwoFactor("pending");
    const code = await codeOf(u.secret);
    const expired = { success: false, message: SIGN_IN_2FA_MSG.expired };
    const none = await call(login2fa.POST, "POST", "/api/user/login/2fa", { body: { code } });
    expect(none.status).toBe(401);
    expect(none.json).toEqual(expired);

    const forgedWith = async (key: string) =>
      `${PENDING_2FA_COOKIE}=${await new SignJWT({ ver: 0, method: "password" })
        .setProtectedHeader({ alg: "HS256" })
        .setSubject(String(u.id))
        .setIssuedAt()
        .setExpirationTime(clock + 300)
        .sign(new TextEncoder().encode(key))}`;
    // Signed with another key, and with the session secret itself (a session's key is not the pending one's).
    expect((await codeStep(await forgedWith("not-the-secret-0123456789abcdef"), code)).json).toEqual(expired);
    expect((await codeStep(await forgedWith(process.env.SESSION_SECRET!), code)).json).toEqual(expired);
    // A session cookie is not a pending one either.
    expect((await codeStep(u.cookie.replace(/^qiao_session=/, `${PENDING_2FA_COOKIE}=`), code)).json).toEqual(expired);

    const { pending } = await passwordLogin(u.username);
    tick(301);
    expect((await codeStep(pending, await codeOf(u.secret))).json).toEqual(expired);
  });

  it("refuses a pending sign-in after the password changed, and for a banned user", async () => {
    const u = await userWithTwoFactor("pwchange");
    const { pending } = await passwordLogin(u.username);
    const changed = await call(self.PUT, "PUT", "/api/user/self", {
      as: u,
      body: { password: "newpassword1", original_password: "password123" },
    });
    expect(changed.json.success).toBe(true);
    expect((await codeStep(pending, await codeOf(u.secret))).json).toEqual({ success: false, message: SIGN_IN_2FA_MSG.expired });

    const banned = await userWithTwoFactor("banned");
    const second = await passwordLogin(banned.username);
    await (await getDb()).user.update({ where: { id: banned.id }, data: { status: 2 } });
    const refused = await codeStep(second.pending, await codeOf(banned.secret));
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ success: false, message: BANNED_MESSAGE });
  });

  it("a passkey sign-in skips the code; a third-party one asks for it and keeps its method", async () => {
    const u = await userWithTwoFactor("methods");
    const row = await (await getDb()).user.findUniqueOrThrow({ where: { id: u.id } });
    const claims = { id: u.id, username: u.username, role: row.role, auth_version: row.auth_version };
    const req = () => new Request("http://localhost/api/user/passkey/login/finish", { method: "POST" });

    const withPasskey = await completeSignIn(req(), claims, "passkey");
    expect(withPasskey.state).toBe("signed_in");
    expect(withPasskey.setCookie.startsWith("qiao_session=")).toBe(true);

    const withGitHub = await completeSignIn(req(), claims, "github");
    expect(withGitHub.state).toBe("require_2fa");
    expect(withGitHub.setCookie.startsWith(`${PENDING_2FA_COOKIE}=`)).toBe(true);
    const done = await codeStep(cookieFrom(withGitHub.setCookie), await codeOf(u.secret));
    const session = cookieFrom(done.headers.getSetCookie().find((c) => c.startsWith("qiao_session="))!);
    const db = await getDirectDb();
    const [sessionRow] = await db.query("SELECT method FROM user_sessions WHERE id = ?", [await sessionIdOf(session)]);
    expect(sessionRow).toMatchObject({ method: "github" });
  });
});

// ---- Administration -------------------------------------------------------------------------------

describe("root's reset and the statistics", () => {
  it("root switches a user's two-factor off, ending all of their sessions, and the audit trail says so; an admin may not", async () => {
    const u = await userWithTwoFactor("lost");
    const admin = await newUser("tfadmin", 10);
    const target = { params: { id: String(u.id) }, ip: "192.0.2.10" };

    const byAdmin = await call(reset.DELETE, "DELETE", `/api/user/${u.id}/2fa`, { as: admin, ...target });
    expect(byAdmin.status).toBe(403);
    expect((await statusOf(u)).enabled).toBe(true);

    const byRoot = await call(reset.DELETE, "DELETE", `/api/user/${u.id}/2fa`, { as: root, ...target });
    expect(byRoot.json).toEqual({ success: true, message: TWO_FACTOR_MSG.reset, data: null });
    expect(await rowOf(u.id)).toBeUndefined();
    expect((await selfWith(u)).status).toBe(401);
    const { res } = await passwordLogin(u.username);
    expect(res.json).toMatchObject({ success: true, data: { id: u.id } });

    const db = await getDirectDb();
    const audit = await db.query(
      "SELECT actor_id, actor_name, action, target_type, target_id, ip, detail FROM audit_logs WHERE target_id = ? AND action = ?",
      [String(u.id), "user.2fa_reset"],
    );
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_name: "root", target_type: "user", ip: "192.0.2.10" });
    expect(Number(audit[0]!.actor_id)).toBe(root.id);
    expect(JSON.parse(String(audit[0]!.detail))).toEqual({ username: u.username });

    const twice = await call(reset.DELETE, "DELETE", `/api/user/${u.id}/2fa`, { as: root, ...target });
    expect(twice.json).toEqual({ success: false, message: TWO_FACTOR_MSG.notEnabled });
    const missing = await call(reset.DELETE, "DELETE", "/api/user/999999/2fa", { as: root, params: { id: "999999" } });
    expect(missing.status).toBe(404);
    const ownAsRoot = await call(reset.DELETE, "DELETE", `/api/user/${root.id}/2fa`, { as: root, params: { id: String(root.id) } });
    expect(ownAsRoot.json).toEqual({ success: false, message: TWO_FACTOR_MSG.outranked });
  });

  it("an admin reads how many accounts have two-factor on; a user may not", async () => {
    await userWithTwoFactor("counted");
    const admin = await newUser("statsadmin", 10);
    const res = await call(stats.GET, "GET", "/api/user/2fa/stats", { as: admin });
    const db = await getDirectDb();
    const [users] = await db.query("SELECT COUNT(*) AS n FROM users WHERE deleted_at IS NULL");
    const [on] = await db.query("SELECT COUNT(*) AS n FROM two_factors WHERE enabled = ?", [true]);
    const total = Number(users!.n);
    const enabled = Number(on!.n);
    expect(enabled).toBeGreaterThan(0);
    expect(res.json.data).toEqual({ total_users: total, enabled_users: enabled, enabled_rate: `${((enabled / total) * 100).toFixed(1)}%` });
    const user = await newUser("statsuser");
    expect((await call(stats.GET, "GET", "/api/user/2fa/stats", { as: user })).status).toBe(403);
  });
});
