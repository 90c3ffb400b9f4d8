// Passkeys through the real route handlers and a real SQLite file, with a software authenticator
// (tests/helpers/webauthn.ts) making real attestations and assertions: registration, sign-in with
// no password, step-up, removal and the admin reset, and every refusal a ceremony can meet.
import { randomBytes } from "node:crypto";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import * as passkeys from "@/app/api/user/passkey/route";
import * as passkeyOne from "@/app/api/user/passkey/[id]/route";
import * as registerBegin from "@/app/api/user/passkey/register/begin/route";
import * as registerFinish from "@/app/api/user/passkey/register/finish/route";
import * as loginBegin from "@/app/api/user/passkey/login/begin/route";
import * as loginFinish from "@/app/api/user/passkey/login/finish/route";
import * as verifyBegin from "@/app/api/user/passkey/verify/begin/route";
import * as verifyFinish from "@/app/api/user/passkey/verify/finish/route";
import * as resetPasskey from "@/app/api/user/[id]/reset_passkey/route";
import * as self from "@/app/api/user/self/route";
import { PASSKEY_MSG } from "@/lib/accounts/passkeys";
import { SIGN_IN_WAY_MSG } from "@/lib/accounts/sign-in-methods";
import { WEBAUTHN_MSG } from "@/lib/accounts/webauthn";
import { hashAccessToken } from "@/lib/auth/authenticate";
import { FLOW_COOKIE } from "@/lib/auth/flows";
import { STEP_UP_MSG } from "@/lib/auth/step-up";
import { getDb } from "@/lib/db";
import { getDirectDb } from "@/lib/db/direct";
import { nowSeconds } from "@/lib/db/num";
import { env } from "@/lib/env";
import { updateOption } from "@/lib/options";
import { defaultRaw } from "@/lib/options/registry";
import { USER_MSG } from "@/lib/users/manage-rules";
import { type CallOptions, call, cookieFrom, createUser, sessionCookieFor } from "@/tests/helpers/api";
import { SoftAuthenticator } from "@/tests/helpers/webauthn";

let seq = 0;
/** A fresh client address per sign-in, so the rate limit bites only where it is tested. */
const freshIp = () => `198.51.${Math.floor(++seq / 250)}.${seq % 250}`;
/** A browser: its flow cookie (lib/auth/flows.ts). */
const newBrowser = () => `${FLOW_COOKIE}=${randomBytes(24).toString("base64url")}`;

type User = { id: number; username: string; cookie: string };

const newUser = async (prefix: string, fields: { role?: number } = {}): Promise<User> =>
  createUser({ username: `${prefix}${++seq}`, ...fields });

/** Calls as `user` from `browser` (both cookies). */
const as = (user: User, browser: string, more: CallOptions = {}): CallOptions => ({
  ...more,
  as: { id: user.id, cookie: `${user.cookie}; ${browser}` },
});

async function beginRegistration(user: User, browser: string, name = "") {
  const res = await call(registerBegin.POST, "POST", "/api/user/passkey/register/begin", as(user, browser, { body: { name } }));
  expect(res.json.success, res.json.message).toBe(true);
  return res.json.data.options.publicKey;
}

/** Registers `authenticator` as one of `user`'s passkeys; answers the stored row's view. */
async function registerPasskey(user: User, authenticator = new SoftAuthenticator(), name = "") {
  const browser = newBrowser();
  const options = await beginRegistration(user, browser, name);
  const res = await call(
    registerFinish.POST,
    "POST",
    "/api/user/passkey/register/finish",
    as(user, browser, { body: authenticator.register(options) }),
  );
  expect(res.json.success, res.json.message).toBe(true);
  return { authenticator, passkey: res.json.data as { id: number; name: string } };
}

async function beginLogin(browser: string, ip = freshIp(), headers: Record<string, string> = {}) {
  const res = await call(loginBegin.POST, "POST", "/api/user/passkey/login/begin", { cookie: browser, ip, headers });
  expect(res.json.success, res.json.message).toBe(true);
  return res.json.data.options.publicKey;
}

const finishLogin = (browser: string, body: unknown, ip = freshIp()) =>
  call(loginFinish.POST, "POST", "/api/user/passkey/login/finish", { cookie: browser, body, ip });

/** A whole passkey sign-in with `authenticator`, its answer bent as given. */
async function signIn(authenticator: SoftAuthenticator, bend: Parameters<SoftAuthenticator["assert"]>[1] = {}) {
  const browser = newBrowser();
  const options = await beginLogin(browser);
  return finishLogin(browser, authenticator.assert(options, bend));
}

/** A user with one passkey, and its answer to a sign-in challenge begun in `browser`. */
async function answeredSignIn(prefix: string) {
  const user = await newUser(prefix);
  const { authenticator } = await registerPasskey(user);
  const browser = newBrowser();
  return { authenticator, browser, answer: authenticator.assert(await beginLogin(browser)) };
}

const passkeyRow = async (id: number) => (await getDb()).passkey.findUniqueOrThrow({ where: { id } });

const sessionRow = async (cookie: string) => {
  const token = cookie.split("=")[1]!;
  const jti = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()).jti as string;
  return (await getDb()).userSession.findUniqueOrThrow({ where: { id: jti } });
};

let root: User;
beforeAll(async () => {
  const row = await (await getDb()).user.findUniqueOrThrow({ where: { username: "root" } });
  root = { id: row.id, username: row.username, cookie: await sessionCookieFor(row.id) };
});

afterEach(async () => {
  await updateOption("ServerAddress", defaultRaw("ServerAddress"));
});

describe("registration", () => {
  it("asks for a resident, user-verified credential from this site and stores the verified one", async () => {
    const user = await newUser("pk-reg");
    const browser = newBrowser();
    const options = await beginRegistration(user, browser, "工作电脑");
    expect(options.rp).toEqual({ id: "localhost", name: "Qiao" });
    expect(options.user.name).toBe(user.username);
    expect(options.authenticatorSelection).toMatchObject({
      residentKey: "required",
      requireResidentKey: true,
      userVerification: "required",
    });
    expect(options.excludeCredentials).toEqual([]);
    expect(options.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const authenticator = new SoftAuthenticator();
    const finished = await call(
      registerFinish.POST,
      "POST",
      "/api/user/passkey/register/finish",
      as(user, browser, { body: authenticator.register(options) }),
    );
    expect(finished.json).toMatchObject({ success: true, message: PASSKEY_MSG.registered, data: { name: "工作电脑", last_used_at: 0 } });
    const row = await passkeyRow(finished.json.data.id);
    expect(row).toMatchObject({ user_id: user.id, credential_id: authenticator.id, transports: "internal", counter: 0n });

    const listed = await call(passkeys.GET, "GET", "/api/user/passkey", { as: user });
    expect(listed.json.data).toMatchObject({
      enabled: true,
      last_used_at: 0,
      passkeys: [{ id: row.id, name: "工作电脑", backed_up: false }],
    });

    // The next registration excludes it, so the same authenticator is not registered twice.
    const again = await beginRegistration(user, newBrowser());
    expect(again.excludeCredentials).toEqual([{ id: authenticator.id, transports: ["internal"], type: "public-key" }]);
  });

  it("names an unnamed passkey, and refuses a credential already registered", async () => {
    const user = await newUser("pk-dup");
    const { authenticator, passkey } = await registerPasskey(user);
    expect(passkey.name).toBe("通行密钥");
    const browser = newBrowser();
    const options = await beginRegistration(user, browser);
    const res = await call(
      registerFinish.POST,
      "POST",
      "/api/user/passkey/register/finish",
      as(user, browser, { body: authenticator.register(options) }),
    );
    expect(res.json).toEqual({ success: false, message: PASSKEY_MSG.duplicate });
  });

  it("sets the browser's flow cookie when it has none, and binds the challenge to it", async () => {
    const user = await newUser("pk-cookie");
    const begun = await call(registerBegin.POST, "POST", "/api/user/passkey/register/begin", { as: user, body: {} });
    const flowCookie = cookieFrom(begun.headers.get("set-cookie"));
    expect(flowCookie).toMatch(new RegExp(`^${FLOW_COOKIE}=`));
    const response = new SoftAuthenticator().register(begun.json.data.options.publicKey);
    const res = await call(registerFinish.POST, "POST", "/api/user/passkey/register/finish", as(user, flowCookie, { body: response }));
    expect(res.json.success, res.json.message).toBe(true);
  });

  it("refuses a challenge another account started, even in the same browser", async () => {
    const [a, b] = [await newUser("pk-ua"), await newUser("pk-ub")];
    const browser = newBrowser();
    const options = await beginRegistration(a, browser);
    const res = await call(
      registerFinish.POST,
      "POST",
      "/api/user/passkey/register/finish",
      as(b, browser, { body: new SoftAuthenticator().register(options) }),
    );
    expect(res.json).toEqual({ success: false, message: PASSKEY_MSG.flowGone });
    expect(await (await getDb()).passkey.count({ where: { user_id: { in: [a.id, b.id] } } })).toBe(0);
  });

  it("refuses an authenticator that did not verify its user, and a wrong origin or RP ID", async () => {
    const user = await newUser("pk-regbad");
    for (const [bend, message] of [
      [{ userVerified: false }, WEBAUTHN_MSG.userNotVerified],
      [{ origin: "https://evil.example" }, WEBAUTHN_MSG.originMismatch("https://evil.example", "http://localhost")],
      [{ rpId: "evil.example" }, WEBAUTHN_MSG.rpMismatch("localhost")],
    ] as const) {
      const browser = newBrowser();
      const options = await beginRegistration(user, browser);
      const res = await call(
        registerFinish.POST,
        "POST",
        "/api/user/passkey/register/finish",
        as(user, browser, { body: new SoftAuthenticator().register(options, bend) }),
      );
      expect(res.json).toEqual({ success: false, message });
    }
    expect(await (await getDb()).passkey.count({ where: { user_id: user.id } })).toBe(0);
  });

  it("refuses a body that is not a credential", async () => {
    const user = await newUser("pk-shape");
    const res = await call(registerFinish.POST, "POST", "/api/user/passkey/register/finish", as(user, newBrowser(), { body: { id: "x" } }));
    expect(res.status).toBe(400);
    expect(res.json.success).toBe(false);
    expect(res.json.message).toContain("通行密钥的响应格式无效");
  });
});

describe("sign-in with a passkey", () => {
  it("signs in with no username or password, answering as the password login does", async () => {
    const user = await newUser("pk-login");
    const { authenticator, passkey } = await registerPasskey(user);
    const browser = newBrowser();
    const options = await beginLogin(browser);
    expect(options.rpId).toBe("localhost");
    expect(options.userVerification).toBe("required");
    expect(options.allowCredentials).toBeUndefined();

    const res = await finishLogin(browser, authenticator.assert(options));
    expect(res.json).toMatchObject({ success: true, message: "", data: { id: user.id, username: user.username } });
    expect(res.json.data.password).toBeUndefined();
    const cookie = cookieFrom(res.headers.get("set-cookie"));
    expect(cookie).toMatch(/^qiao_session=/);
    const session = await sessionRow(cookie);
    expect(session.method).toBe("passkey");
    expect(session.verified_at).toBeGreaterThan(0);
    const me = await call(self.GET, "GET", "/api/user/self", { as: { id: user.id, cookie } });
    expect(me.json.data.username).toBe(user.username);
    expect((await passkeyRow(passkey.id)).last_used_at).toBeGreaterThan(0);
  });

  it("skips the TOTP code of an account with two-factor on", async () => {
    const user = await newUser("pk-2fa");
    const { authenticator } = await registerPasskey(user);
    await (await getDb()).twoFactor.create({ data: { user_id: user.id, secret_enc: "x", enabled: true, created_at: nowSeconds() } });
    const res = await signIn(authenticator);
    expect(res.json.success, res.json.message).toBe(true);
    expect(res.json.data.require_2fa).toBeUndefined();
    expect(cookieFrom(res.headers.get("set-cookie"))).toMatch(/^qiao_session=/);
  });

  it("uses a challenge once", async () => {
    const { browser, answer } = await answeredSignIn("pk-replay");
    expect((await finishLogin(browser, answer)).json.success).toBe(true);
    expect((await finishLogin(browser, answer)).json).toEqual({ success: false, message: PASSKEY_MSG.flowGone });
  });

  it("refuses an expired challenge", async () => {
    const { browser, answer } = await answeredSignIn("pk-expired");
    await (await getDirectDb()).execute("UPDATE auth_flows SET expires_at = ? WHERE kind = ?", [nowSeconds() - 1, "webauthn:login"]);
    expect((await finishLogin(browser, answer)).json).toEqual({ success: false, message: PASSKEY_MSG.flowGone });
  });

  it("refuses a challenge finished from another browser, or from none, and burns it", async () => {
    const { authenticator, browser, answer } = await answeredSignIn("pk-browser");
    expect((await finishLogin(newBrowser(), answer)).json).toEqual({ success: false, message: PASSKEY_MSG.flowGone });
    expect((await finishLogin(browser, answer)).json).toEqual({ success: false, message: PASSKEY_MSG.flowGone });
    const other = newBrowser();
    const second = authenticator.assert(await beginLogin(other));
    expect((await finishLogin("", second)).json).toEqual({ success: false, message: PASSKEY_MSG.flowGone });
  });

  it("refuses a wrong origin and a wrong RP ID, naming ServerAddress", async () => {
    const user = await newUser("pk-origin");
    const { authenticator } = await registerPasskey(user);
    const origin = await signIn(authenticator, { origin: "https://evil.example" });
    expect(origin.json).toEqual({ success: false, message: WEBAUTHN_MSG.originMismatch("https://evil.example", "http://localhost") });
    expect(origin.json.message).toContain("ServerAddress");
    const rp = await signIn(authenticator, { rpId: "evil.example" });
    expect(rp.json).toEqual({ success: false, message: WEBAUTHN_MSG.rpMismatch("localhost") });
    expect(rp.headers.get("set-cookie")).toBeNull();
  });

  it("takes the relying party from ServerAddress once the operator sets it", async () => {
    const user = await newUser("pk-server");
    await updateOption("ServerAddress", "https://gw.example.com/console");
    const browser = newBrowser();
    const options = await beginRegistration(user, browser);
    expect(options.rp.id).toBe("gw.example.com");
    const atLocalhost = new SoftAuthenticator();
    const refused = await call(
      registerFinish.POST,
      "POST",
      "/api/user/passkey/register/finish",
      as(user, browser, { body: atLocalhost.register(options) }),
    );
    expect(refused.json.message).toBe(WEBAUTHN_MSG.originMismatch("http://localhost", "https://gw.example.com"));

    const atGateway = new SoftAuthenticator("https://gw.example.com");
    const again = newBrowser();
    const ok = await call(
      registerFinish.POST,
      "POST",
      "/api/user/passkey/register/finish",
      as(user, again, { body: atGateway.register(await beginRegistration(user, again)) }),
    );
    expect(ok.json.success, ok.json.message).toBe(true);
    expect((await signIn(atGateway)).json.success).toBe(true);
  });

  it("until then, follows the address the browser is on (its Origin header)", async () => {
    const browser = newBrowser();
    const options = await beginLogin(browser, freshIp(), { origin: "https://console.example:8443" });
    expect(options.rpId).toBe("console.example");
  });

  it("refuses an unknown credential", async () => {
    const res = await signIn(new SoftAuthenticator());
    expect(res.json).toEqual({ success: false, message: PASSKEY_MSG.unknownCredential });
  });

  it("refuses a user handle that names another account", async () => {
    const [a, b] = [await newUser("pk-ha"), await newUser("pk-hb")];
    const { authenticator } = await registerPasskey(a);
    const res = await signIn(authenticator, { userHandle: Buffer.from(String(b.id)).toString("base64url") });
    expect(res.json).toEqual({ success: false, message: PASSKEY_MSG.handleMismatch });
  });

  it("refuses a forged signature", async () => {
    const { browser, answer } = await answeredSignIn("pk-forged");
    const signature = Buffer.from(answer.response.signature, "base64url");
    signature[signature.length - 1]! ^= 1;
    answer.response.signature = signature.toString("base64url");
    expect((await finishLogin(browser, answer)).json).toEqual({ success: false, message: WEBAUTHN_MSG.failed });
  });

  it("refuses a signature counter that does not grow, on an authenticator that counts", async () => {
    const user = await newUser("pk-counter");
    const { authenticator, passkey } = await registerPasskey(user, new SoftAuthenticator(undefined, { counting: true }));
    expect((await signIn(authenticator)).json.success).toBe(true);
    const counted = Number((await passkeyRow(passkey.id)).counter);
    expect(counted).toBe(authenticator.counter);
    for (const counter of [counted, counted - 1]) {
      expect((await signIn(authenticator, { counter })).json).toEqual({ success: false, message: WEBAUTHN_MSG.counterBack });
    }
    expect(Number((await passkeyRow(passkey.id)).counter)).toBe(counted);
    expect((await signIn(authenticator)).json.success).toBe(true);
  });

  it("lets an authenticator that never counts (counter 0) sign in again and again", async () => {
    const user = await newUser("pk-zero");
    const { authenticator } = await registerPasskey(user);
    for (let i = 0; i < 2; i++) expect((await signIn(authenticator)).json.success).toBe(true);
  });

  it("refuses an authenticator that did not verify its user", async () => {
    const user = await newUser("pk-uv");
    const { authenticator } = await registerPasskey(user);
    expect((await signIn(authenticator, { userVerified: false })).json).toEqual({ success: false, message: WEBAUTHN_MSG.userNotVerified });
  });

  it("refuses a disabled and a deleted account", async () => {
    const db = await getDb();
    const disabled = await newUser("pk-off");
    const { authenticator: offKey } = await registerPasskey(disabled);
    await db.user.update({ where: { id: disabled.id }, data: { status: 2 } });
    const off = await signIn(offKey);
    expect(off.status).toBe(403);
    expect(off.json).toEqual({ success: false, message: PASSKEY_MSG.userDisabled });
    expect(off.headers.get("set-cookie")).toBeNull();

    const deleted = await newUser("pk-gone");
    const { authenticator: goneKey } = await registerPasskey(deleted);
    await db.user.update({ where: { id: deleted.id }, data: { deleted_at: new Date() } });
    expect((await signIn(goneKey)).json).toEqual({ success: false, message: PASSKEY_MSG.userGone });
  });

  it("limits the public calls per client address", async () => {
    const ip = "203.0.113.77";
    for (let i = 0; i < env.CRITICAL_RATE_LIMIT; i++) await beginLogin(newBrowser(), ip);
    const limited = await call(loginBegin.POST, "POST", "/api/user/passkey/login/begin", { cookie: newBrowser(), ip });
    expect(limited.status).toBe(429);
    expect(
      (await call(loginBegin.POST, "POST", "/api/user/passkey/login/begin", { cookie: newBrowser(), ip: freshIp() })).json.success,
    ).toBe(true);
  });
});

describe("step-up with a passkey", () => {
  it("marks the caller's session as just verified", async () => {
    const user = await newUser("pk-step");
    const { authenticator } = await registerPasskey(user);
    expect((await sessionRow(user.cookie)).verified_at).toBe(0);
    const browser = newBrowser();
    const begun = await call(verifyBegin.POST, "POST", "/api/user/passkey/verify/begin", as(user, browser));
    const options = begun.json.data.options.publicKey;
    expect(options.allowCredentials).toEqual([{ id: authenticator.id, transports: ["internal"], type: "public-key" }]);
    const res = await call(
      verifyFinish.POST,
      "POST",
      "/api/user/passkey/verify/finish",
      as(user, browser, { body: authenticator.assert(options) }),
    );
    expect(res.json).toEqual({ success: true, message: PASSKEY_MSG.verified, data: null });
    expect((await sessionRow(user.cookie)).verified_at).toBeGreaterThan(0);
  });

  it("refuses another user's passkey, and leaves the session unverified", async () => {
    const [a, b] = [await newUser("pk-sa"), await newUser("pk-sb")];
    const { authenticator: aKey } = await registerPasskey(a);
    await registerPasskey(b);
    const browser = newBrowser();
    const begun = await call(verifyBegin.POST, "POST", "/api/user/passkey/verify/begin", as(b, browser));
    const res = await call(
      verifyFinish.POST,
      "POST",
      "/api/user/passkey/verify/finish",
      as(b, browser, { body: aKey.assert(begun.json.data.options.publicKey) }),
    );
    expect(res.json).toEqual({ success: false, message: PASSKEY_MSG.notYours });
    expect((await sessionRow(b.cookie)).verified_at).toBe(0);
  });

  it("refuses a sign-in challenge used for step-up", async () => {
    const user = await newUser("pk-kind");
    const { authenticator } = await registerPasskey(user);
    const browser = newBrowser();
    const answer = authenticator.assert(await beginLogin(browser));
    const res = await call(verifyFinish.POST, "POST", "/api/user/passkey/verify/finish", as(user, browser, { body: answer }));
    expect(res.json).toEqual({ success: false, message: PASSKEY_MSG.flowGone });
  });

  it("is for console sessions: an access token cannot step up", async () => {
    const user = await newUser("pk-token");
    await registerPasskey(user);
    await (await getDb()).user.update({ where: { id: user.id }, data: { access_token_hash: hashAccessToken("pk-token-secret") } });
    const res = await call(verifyBegin.POST, "POST", "/api/user/passkey/verify/begin", {
      headers: { authorization: "Bearer pk-token-secret" },
      cookie: newBrowser(),
    });
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ success: false, message: STEP_UP_MSG.sessionOnly });
  });

  it("tells an account without passkeys so", async () => {
    const user = await newUser("pk-none");
    const res = await call(verifyBegin.POST, "POST", "/api/user/passkey/verify/begin", as(user, newBrowser()));
    expect(res.json).toEqual({ success: false, message: PASSKEY_MSG.none });
  });
});

describe("removal", () => {
  it("removes one's own passkey, not another's", async () => {
    const [a, b] = [await newUser("pk-da"), await newUser("pk-db")];
    const { passkey } = await registerPasskey(a);
    const theirs = await call(passkeyOne.DELETE, "DELETE", `/api/user/passkey/${passkey.id}`, {
      as: b,
      params: { id: String(passkey.id) },
    });
    expect(theirs.json).toEqual({ success: false, message: PASSKEY_MSG.notFound });
    const mine = await call(passkeyOne.DELETE, "DELETE", `/api/user/passkey/${passkey.id}`, { as: a, params: { id: String(passkey.id) } });
    expect(mine.json).toEqual({ success: true, message: PASSKEY_MSG.deleted, data: null });
    expect((await call(passkeys.GET, "GET", "/api/user/passkey", { as: a })).json.data).toEqual({
      enabled: false,
      last_used_at: 0,
      passkeys: [],
    });
  });

  it("refuses to remove the last way to sign in of an account without a password", async () => {
    const user = await newUser("pk-last");
    await (await getDb()).user.update({ where: { id: user.id }, data: { password: "" } });
    const { passkey: first } = await registerPasskey(user);
    const { passkey: second } = await registerPasskey(user);
    const remove = (id: number) => call(passkeyOne.DELETE, "DELETE", `/api/user/passkey/${id}`, { as: user, params: { id: String(id) } });
    expect((await call(passkeys.DELETE, "DELETE", "/api/user/passkey", { as: user })).json).toEqual({
      success: false,
      message: SIGN_IN_WAY_MSG.lastWay,
    });
    expect((await remove(first.id)).json.success).toBe(true);
    expect((await remove(second.id)).json).toEqual({ success: false, message: SIGN_IN_WAY_MSG.lastWay });
    expect(await (await getDb()).passkey.count({ where: { user_id: user.id } })).toBe(1);
  });

  it("removes them all at once (new-api's DELETE /api/user/passkey) when a password remains", async () => {
    const user = await newUser("pk-all");
    await registerPasskey(user);
    await registerPasskey(user);
    const res = await call(passkeys.DELETE, "DELETE", "/api/user/passkey", { as: user });
    expect(res.json).toEqual({ success: true, message: PASSKEY_MSG.deletedAll, data: { removed: 2 } });
  });
});

describe("the admin reset", () => {
  it("removes a user's passkeys and writes the audit trail", async () => {
    const admin = await newUser("pk-admin", { role: 10 });
    const user = await newUser("pk-lost");
    const { authenticator } = await registerPasskey(user);
    await registerPasskey(user);
    const res = await call(resetPasskey.DELETE, "DELETE", `/api/user/${user.id}/reset_passkey`, {
      as: admin,
      params: { id: String(user.id) },
      ip: "192.0.2.9",
    });
    expect(res.json).toEqual({ success: true, message: PASSKEY_MSG.reset, data: { removed: 2 } });
    expect((await signIn(authenticator)).json.message).toBe(PASSKEY_MSG.unknownCredential);
    const audit = await (await getDb()).auditLog.findFirstOrThrow({ where: { action: "user.passkey_reset", target_id: String(user.id) } });
    expect(audit).toMatchObject({ actor_id: admin.id, actor_name: admin.username, target_type: "user", ip: "192.0.2.9" });
    expect(JSON.parse(audit.detail)).toEqual({ username: user.username, removed: 2 });

    const again = await call(resetPasskey.DELETE, "DELETE", `/api/user/${user.id}/reset_passkey`, {
      as: admin,
      params: { id: String(user.id) },
    });
    expect(again.json).toEqual({ success: false, message: PASSKEY_MSG.resetNone });
  });

  it("follows the admin rules: not on an equal or higher role, not for an ordinary user", async () => {
    const admin = await newUser("pk-adm1", { role: 10 });
    const peer = await newUser("pk-adm2", { role: 10 });
    await registerPasskey(peer);
    const outranked = await call(resetPasskey.DELETE, "DELETE", `/api/user/${peer.id}/reset_passkey`, {
      as: admin,
      params: { id: String(peer.id) },
    });
    expect(outranked.json).toEqual({ success: false, message: USER_MSG.outranked });
    const plain = await newUser("pk-plain");
    const denied = await call(resetPasskey.DELETE, "DELETE", `/api/user/${peer.id}/reset_passkey`, {
      as: plain,
      params: { id: String(peer.id) },
    });
    expect(denied.status).toBe(403);
    const byRoot = await call(resetPasskey.DELETE, "DELETE", `/api/user/${peer.id}/reset_passkey`, {
      as: root,
      params: { id: String(peer.id) },
    });
    expect(byRoot.json.success).toBe(true);
    expect(await (await getDb()).auditLog.count({ where: { action: "user.passkey_reset", target_id: String(peer.id) } })).toBe(1);
  });
});
