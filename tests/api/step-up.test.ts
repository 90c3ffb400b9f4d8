// Step-up (issue 23, "Step-up"): revealing a channel key and a new system access token need the
// password or a two-factor code (or a passkey) within the last 5 minutes, proven through
// POST /api/verify; an access token can never step up. verified_at is moved back in the database
// rather than waited for.
import { generate } from "otplib";
import { beforeAll, describe, expect, it } from "vitest";
import * as channels from "@/app/api/channel/route";
import * as reveal from "@/app/api/channel/[id]/key/route";
import * as enable from "@/app/api/user/2fa/enable/route";
import * as setup from "@/app/api/user/2fa/setup/route";
import * as accessToken from "@/app/api/user/token/route";
import * as verify from "@/app/api/verify/route";
import { VERIFY_MSG } from "@/lib/accounts/step-up";
import { TWO_FACTOR_MSG } from "@/lib/accounts/two-factor";
import { STEP_UP_MSG } from "@/lib/auth/step-up";
import { getDb } from "@/lib/db";
import { getDirectDb } from "@/lib/db/direct";
import { nowSeconds } from "@/lib/db/num";
import { env } from "@/lib/env";
import { TOO_MANY_FAILURES } from "@/lib/users/auth";
import { call, createUser, sessionCookieFor } from "@/tests/helpers/api";
import { markVerified } from "@/tests/helpers/step-up";

type User = { id: number; username: string; cookie: string };

let seq = 0;
const freshIp = () => `198.18.77.${++seq % 250}`;

let root: User;
let channelId: number;
const CHANNEL_KEY = "sk-step-up-upstream-0001";

beforeAll(async () => {
  const row = await (await getDb()).user.findUniqueOrThrow({ where: { username: "root" } });
  root = { id: row.id, username: row.username, cookie: await sessionCookieFor(row.id) };
  const created = await call(channels.POST, "POST", "/api/channel/", {
    as: root,
    body: { type: 1, name: "step-up", key: CHANNEL_KEY, models: "gpt-4o", group: "default" },
  });
  expect(created.json.success).toBe(true);
  const db = await getDb();
  channelId = (await db.channel.findFirstOrThrow({ where: { name: "step-up" } })).id;
});

const revealKey = (as: { id: number; cookie: string }) =>
  call(reveal.POST, "POST", `/api/channel/${channelId}/key`, { as, params: { id: String(channelId) } });
const newToken = (as: { id: number; cookie: string }) => call(accessToken.GET, "GET", "/api/user/token", { as });
const verifyWith = (as: { id: number; cookie: string }, body: unknown, ip = freshIp()) =>
  call(verify.POST, "POST", "/api/verify", { as, body, ip });

const STEP_UP_REFUSAL = { success: false, message: STEP_UP_MSG.required, data: { step_up: true } };

describe("the channel key reveal", () => {
  it("is refused without step-up, allowed within 5 minutes of the password, refused again after", async () => {
    const session = { id: root.id, cookie: await sessionCookieFor(root.id) };
    const refused = await revealKey(session);
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual(STEP_UP_REFUSAL);
    expect(refused.text).not.toContain(CHANNEL_KEY);

    const wrong = await verifyWith(session, { method: "password", password: "not-the-password" });
    expect(wrong.json).toEqual({ success: false, message: VERIFY_MSG.wrongPassword });
    expect((await revealKey(session)).status).toBe(403);

    const right = await verifyWith(session, { method: "password", password: "123456" });
    expect(right.json).toMatchObject({ success: true, message: VERIFY_MSG.verified, data: { method: "password" } });
    expect(right.json.data.expires_at).toBeGreaterThanOrEqual(nowSeconds() + 299);
    expect((await revealKey(session)).json).toEqual({ success: true, message: "", data: { key: CHANNEL_KEY } });

    // Verification is per session: root's other session has not stepped up.
    expect((await revealKey(root)).json).toEqual(STEP_UP_REFUSAL);

    await markVerified(session.cookie, nowSeconds() - 299);
    expect((await revealKey(session)).json.success).toBe(true);
    await markVerified(session.cookie, nowSeconds() - 301);
    expect((await revealKey(session)).json).toEqual(STEP_UP_REFUSAL);
  });

  it("a fresh password sign-in counts as verified", async () => {
    const { POST } = await import("@/app/api/user/login/route");
    const res = await call(POST, "POST", "/api/user/login", { body: { username: "root", password: "123456" }, ip: freshIp() });
    const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0]!;
    expect((await revealKey({ id: root.id, cookie })).json.data).toEqual({ key: CHANNEL_KEY });
  });
});

describe("the system access token", () => {
  it("a two-factor code steps up, once; a backup code does too", async () => {
    const u = await createUser({ username: `tok2fa${++seq}`, password: "password123" });
    await markVerified(u.cookie);
    const data = (await call(setup.POST, "POST", "/api/user/2fa/setup", { as: u })).json.data;
    const first = await generate({ secret: data.secret });
    expect((await call(enable.POST, "POST", "/api/user/2fa/enable", { as: u, body: { code: first } })).json.success).toBe(true);

    const session = { id: u.id, cookie: await sessionCookieFor(u.id) };
    expect((await newToken(session)).json).toEqual(STEP_UP_REFUSAL);
    // The next step's code: good within the window whenever the step turns, and later than the first.
    const code = await generate({ secret: data.secret, epoch: nowSeconds() + 30 });
    expect((await verifyWith(session, { method: "2fa", code })).json).toMatchObject({ success: true, data: { method: "2fa" } });
    const token = await newToken(session);
    expect(token.json.success).toBe(true);
    expect(token.json.data).toMatch(/^[A-Za-z0-9_-]{32}$/);

    // The same code again is refused: it cannot keep a stolen session stepped up.
    const later = { id: u.id, cookie: await sessionCookieFor(u.id) };
    expect((await verifyWith(later, { method: "2fa", code })).json).toEqual({ success: false, message: TWO_FACTOR_MSG.wrongCode });
    expect((await newToken(later)).json).toEqual(STEP_UP_REFUSAL);
    expect((await verifyWith(later, { method: "2fa", code: data.backup_codes[0] })).json.success).toBe(true);
    expect((await newToken(later)).json.success).toBe(true);
  });

  it("an account without two-factor cannot verify with a code; one without a password not with a password", async () => {
    const u = await createUser({ username: `nocode${++seq}`, password: "password123" });
    expect((await verifyWith(u, { method: "2fa", code: "123456" })).json).toEqual({ success: false, message: TWO_FACTOR_MSG.notEnabled });
    await (await getDb()).user.update({ where: { id: u.id }, data: { password: "" } });
    expect((await verifyWith(u, { method: "password", password: "password123" })).json).toEqual({
      success: false,
      message: VERIFY_MSG.noPassword,
    });
    expect((await verifyWith(u, { method: "passkey" })).json).toEqual({ success: false, message: VERIFY_MSG.passkeyFlow });
    expect((await verifyWith(u, { method: "sms", code: "1" })).status).toBe(400);
    expect((await newToken(u)).json).toEqual(STEP_UP_REFUSAL);
  });

  it("wrong passwords here count with the sign-in's: past the limit even the right one is refused", async () => {
    const u = await createUser({ username: `verifylock${++seq}`, password: "password123" });
    for (let i = 0; i < env.LOGIN_FAILURE_LIMIT; i++) {
      expect((await verifyWith(u, { method: "password", password: `guess-${i}-x` })).json.message).toBe(VERIFY_MSG.wrongPassword);
    }
    const locked = await verifyWith(u, { method: "password", password: "password123" });
    expect(locked.status).toBe(429);
    expect(locked.json).toEqual({ success: false, message: TOO_MANY_FAILURES });
    expect((await newToken(u)).json).toEqual(STEP_UP_REFUSAL);
  });
});

describe("access-token callers", () => {
  it("cannot step up, reveal a key or make a new token, even right after the session verified", async () => {
    const session = { id: root.id, cookie: await sessionCookieFor(root.id) };
    await markVerified(session.cookie);
    const token = (await newToken(session)).json.data as string;
    const headers = { authorization: `Bearer ${token}` };
    try {
      const viaToken = await call(reveal.POST, "POST", `/api/channel/${channelId}/key`, { headers, params: { id: String(channelId) } });
      expect(viaToken.status).toBe(403);
      expect(viaToken.json).toEqual({ success: false, message: STEP_UP_MSG.sessionOnly });
      expect(viaToken.text).not.toContain(CHANNEL_KEY);
      expect((await call(accessToken.GET, "GET", "/api/user/token", { headers })).json).toEqual({
        success: false,
        message: STEP_UP_MSG.sessionOnly,
      });
      const verifyViaToken = await call(verify.POST, "POST", "/api/verify", { headers, body: { method: "password", password: "123456" } });
      expect(verifyViaToken.status).toBe(403);
      expect(verifyViaToken.json.message).toBe(STEP_UP_MSG.sessionOnly);
    } finally {
      // Root's token is not left behind for other files.
      await (await getDirectDb()).execute("UPDATE users SET access_token_hash = NULL WHERE id = ?", [root.id]);
    }
  });
});

describe("GET /api/verify", () => {
  it("says which ways the account has to verify", async () => {
    const u = await createUser({ username: `ways${++seq}`, password: "password123" });
    expect((await call(verify.GET, "GET", "/api/verify", { as: u })).json.data).toEqual({
      password: true,
      two_factor: false,
      passkey: false,
    });
    await markVerified(u.cookie);
    const data = (await call(setup.POST, "POST", "/api/user/2fa/setup", { as: u })).json.data;
    // A setup not yet enabled is not a way to verify.
    expect((await call(verify.GET, "GET", "/api/verify", { as: u })).json.data.two_factor).toBe(false);
    await call(enable.POST, "POST", "/api/user/2fa/enable", { as: u, body: { code: await generate({ secret: data.secret }) } });
    await (await getDb()).user.update({ where: { id: u.id }, data: { password: "" } });
    expect((await call(verify.GET, "GET", "/api/verify", { as: u })).json.data).toEqual({
      password: false,
      two_factor: true,
      passkey: false,
    });
  });
});
