// Accounts after issue 20 (items 6–9): the wrong-password lock counts per account id and per
// address, usernames are one rule (no `@`, NFKC, nothing invisible) unique ignoring case, sign-in
// by e-mail never matches a username, and an address belongs to one account on every path.
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { call, createUser, sessionCookieFor } from "@/tests/helpers/api";
import * as login from "@/app/api/user/login/route";
import * as register from "@/app/api/user/register/route";
import * as self from "@/app/api/user/self/route";
import * as users from "@/app/api/user/route";
import * as bind from "@/app/api/oauth/email/bind/route";
import * as tokens from "@/app/api/token/route";
import * as selfGroups from "@/app/api/user/self/groups/route";
import { env } from "@/lib/env";
import { updateOption } from "@/lib/options";
import { storeVerificationCode } from "@/lib/auth/verification";
import { ADDRESS_FAILURE_FACTOR, LOGIN_FAILED, TOO_MANY_FAILURES } from "@/lib/users/auth";
import { EMAIL_MSG } from "@/lib/users/email";
import { USERNAME_MSG } from "@/lib/users/username";
import { OWN_GROUP_LABEL } from "@/lib/options/groups";

let seq = 0;
/** A fresh client address per call, so only the limit under test can bite. */
const freshIp = () => `198.18.${Math.floor(++seq / 250)}.${seq % 250}`;

let root: { id: number; cookie: string };
beforeAll(async () => {
  const row = await (await getDb()).user.findUniqueOrThrow({ where: { username: "root" } });
  root = { id: row.id, cookie: await sessionCookieFor(row.id) };
});

const signIn = (username: string, password: string, ip = freshIp()) =>
  call(login.POST, "POST", "/api/user/login", { body: { username, password }, ip });
const registerAs = (username: string, extra: Record<string, string> = {}) =>
  call(register.POST, "POST", "/api/user/register", {
    body: { username, password: "password123", password2: "password123", ...extra },
    ip: freshIp(),
  });
const setEmail = async (id: number, email: string) => (await getDb()).user.update({ where: { id }, data: { email } });

describe("the wrong-password lock (issue 20.6)", () => {
  it("counts a name and its e-mail address as one account", async () => {
    const u = await createUser({ username: "lock-both", password: "password123" });
    await setEmail(u.id, "lock-both@example.com");
    const half = Math.ceil(env.LOGIN_FAILURE_LIMIT / 2);
    for (let i = 0; i < half; i++) expect((await signIn("lock-both", "wrong-pass")).json.message).toBe(LOGIN_FAILED);
    for (let i = half; i < env.LOGIN_FAILURE_LIMIT; i++) {
      expect((await signIn("LOCK-BOTH@example.com", "wrong-pass")).json.message).toBe(LOGIN_FAILED);
    }
    for (const typed of ["lock-both", "lock-both@example.com"]) {
      const locked = await signIn(typed, "password123");
      expect(locked.status).toBe(429);
      expect(locked.json).toEqual({ success: false, message: TOO_MANY_FAILURES });
    }
  });

  it("is not reset by renaming the account", async () => {
    const u = await createUser({ username: "lock-rename", password: "password123" });
    const change = (original: string) =>
      call(self.PUT, "PUT", "/api/user/self", { as: u, body: { password: "newpassword1", original_password: original }, ip: freshIp() });
    for (let i = 0; i < env.LOGIN_FAILURE_LIMIT; i++) expect((await change(`guess-${i}-x`)).json.message).toBe("原密码错误");
    const renamed = await call(self.PUT, "PUT", "/api/user/self", { as: u, body: { username: "lock-renamed" } });
    expect(renamed.json).toMatchObject({ success: true, data: { username: "lock-renamed" } });
    expect((await change("password123")).json).toEqual({ success: false, message: TOO_MANY_FAILURES });
    expect((await signIn("lock-renamed", "password123")).json).toEqual({ success: false, message: TOO_MANY_FAILURES });
  });

  it("an unknown name locks as a real one does", async () => {
    for (let i = 0; i < env.LOGIN_FAILURE_LIMIT; i++) expect((await signIn("nobody-here", "wrong-pass")).json.message).toBe(LOGIN_FAILED);
    expect((await signIn("nobody-here", "wrong-pass")).json.message).toBe(TOO_MANY_FAILURES);
  });

  it("one address guessing across many names is stopped, even for a right password after", async () => {
    const u = await createUser({ username: "lock-addr", password: "password123" });
    const ip = "198.19.7.7";
    for (let i = 0; i < env.LOGIN_FAILURE_LIMIT * ADDRESS_FAILURE_FACTOR; i++) {
      expect((await signIn(`spray-${i}`, "wrong-pass", ip)).json.message).toBe(LOGIN_FAILED);
    }
    expect((await signIn(u.username, "password123", ip)).json).toEqual({ success: false, message: TOO_MANY_FAILURES });
    expect((await signIn(u.username, "password123")).json.success).toBe(true); // from elsewhere the account is fine
  });
});

describe("usernames (issue 20.7, 20.8)", () => {
  it("cannot contain @, on every path that names an account", async () => {
    const at = { success: false, message: `参数错误：username: ${USERNAME_MSG.at}` };
    expect((await registerAs("alice@example.com")).json).toEqual(at);
    const u = await createUser({ username: "at-self" });
    expect((await call(self.PUT, "PUT", "/api/user/self", { as: u, body: { username: "a@b" } })).json).toEqual(at);
    expect((await call(users.POST, "POST", "/api/user/", { as: root, body: { username: "x@y", password: "password123" } })).json).toEqual(
      at,
    );
    expect((await call(users.PUT, "PUT", "/api/user/", { as: root, body: { id: u.id, username: "x@y" } })).json).toEqual(at);
    expect(await (await getDb()).user.count({ where: { username: { contains: "@" } } })).toBe(0);
  });

  it("sign-in with an e-mail address never matches a username", async () => {
    // A row from before the rule: its name is someone else's address.
    const squatter = await createUser({ username: "carol@example.com", password: "squatter-pass" });
    const carol = await createUser({ username: "carol", password: "carolpass1" });
    await setEmail(carol.id, "Carol@Example.com");
    expect((await signIn("carol@example.com", "squatter-pass")).json.message).toBe(LOGIN_FAILED);
    const byMail = await signIn("carol@example.com", "carolpass1");
    expect(byMail.json).toMatchObject({ success: true, data: { id: carol.id } });
    expect(squatter.id).not.toBe(carol.id);
  });

  it("are unique ignoring case and width, and refuse invisible and control characters", async () => {
    for (const name of ["Root", "ROOT", "ｒｏｏｔ", "ＲＯＯＴ"]) {
      expect((await registerAs(name)).json, name).toEqual({ success: false, message: USERNAME_MSG.taken });
    }
    const invisible = { success: false, message: `参数错误：username: ${USERNAME_MSG.invisible}` };
    for (const name of ["ro\u200Bot", "root\u200D", "\u202Eroot", "ro\u00ADot", "r\u0007oot", "ro\u0085ot", "ro\u2028ot", "\u3164root"]) {
      expect((await registerAs(name)).json, JSON.stringify(name)).toEqual(invisible);
    }
    expect((await registerAs("ro ot")).json.message).toBe(`参数错误：username: ${USERNAME_MSG.invalid}`);

    // Stored NFKC-normalized: the fullwidth name is its plain letters.
    expect((await registerAs("Ｆｕｌｌ")).json.success).toBe(true);
    const db = await getDb();
    expect(await db.user.findFirst({ where: { username: "Full" }, select: { username_key: true } })).toEqual({ username_key: "full" });
    expect((await signIn("Ｆｕｌｌ", "password123")).json.success).toBe(true);
    expect((await registerAs("full")).json.message).toBe(USERNAME_MSG.taken);
  });

  it("renaming and an admin's create and edit keep the same rule, and a user may change the case of their own name", async () => {
    const u = await createUser({ username: "renamer" });
    await registerAs("taken-name");
    const taken = { success: false, message: USERNAME_MSG.taken };
    expect((await call(self.PUT, "PUT", "/api/user/self", { as: u, body: { username: "ROOT" } })).json).toEqual(taken);
    expect((await call(self.PUT, "PUT", "/api/user/self", { as: u, body: { username: "Taken-Name" } })).json).toEqual(taken);
    expect((await call(self.PUT, "PUT", "/api/user/self", { as: u, body: { username: "Renamer" } })).json).toMatchObject({
      success: true,
      data: { username: "Renamer" },
    });
    expect((await call(users.POST, "POST", "/api/user/", { as: root, body: { username: "rOOt", password: "password123" } })).json).toEqual(
      taken,
    );
    expect((await call(users.PUT, "PUT", "/api/user/", { as: root, body: { id: u.id, username: "TAKEN-name" } })).json).toEqual(taken);
  });

  it("concurrent registrations of one name in different cases: exactly one wins", async () => {
    const answers = await Promise.all(["RaceName", "racename", "RACENAME", "raceName", "ｒａｃｅｎａｍｅ"].map((n) => registerAs(n)));
    expect(answers.filter((a) => a.json.success)).toHaveLength(1);
    for (const a of answers.filter((a) => !a.json.success)) expect(a.json.message).toBe(USERNAME_MSG.taken);
    expect(await (await getDb()).user.count({ where: { username_key: "racename" } })).toBe(1);
  });
});

describe("one address, one account (issue 20.9)", () => {
  it("an admin's edit cannot give an address another account holds, in any case", async () => {
    const owner = await createUser({ username: "mail-owner" });
    await setEmail(owner.id, "shared@example.com");
    const other = await createUser({ username: "mail-other" });
    for (const email of ["shared@example.com", "Shared@Example.COM"]) {
      const res = await call(users.PUT, "PUT", "/api/user/", { as: root, body: { id: other.id, email } });
      expect(res.json).toEqual({ success: false, message: EMAIL_MSG.taken });
    }
    const db = await getDb();
    expect((await db.user.findUniqueOrThrow({ where: { id: other.id } })).email).toBe("");
    // Its own address (in another case) is not "taken" by itself.
    const same = await call(users.PUT, "PUT", "/api/user/", { as: root, body: { id: owner.id, email: "SHARED@example.com" } });
    expect(same.json.success).toBe(true);
  });

  it("binding and registering compare addresses ignoring case", async () => {
    const owner = await createUser({ username: "mail-owner2" });
    await setEmail(owner.id, "Taken2@Example.com");
    const u = await createUser({ username: "mail-binder" });
    await storeVerificationCode("email", "taken2@example.com", "abc123");
    const bound = await call(bind.GET, "GET", "/api/oauth/email/bind?email=taken2%40example.com&code=abc123", { as: u });
    expect(bound.json).toEqual({ success: false, message: EMAIL_MSG.taken });

    // Registration asks for a code only with e-mail verification on, which needs an SMTP server
    // configured (none is contacted: the code is stored directly).
    await updateOption("SMTPServer", "127.0.0.1");
    await updateOption("SMTPAccount", "mailer@qiao.test");
    await updateOption("SMTPToken", "smtp-secret");
    await updateOption("EmailVerificationEnabled", "true");
    try {
      await storeVerificationCode("email", "TAKEN2@example.com", "def456");
      const res = await registerAs("mail-newcomer", { email: "TAKEN2@example.com", verification_code: "def456" });
      expect(res.json).toEqual({ success: false, message: EMAIL_MSG.taken });
      expect(await (await getDb()).user.count({ where: { username: "mail-newcomer" } })).toBe(0);
    } finally {
      await updateOption("EmailVerificationEnabled", "false");
    }
  });
});

describe("group names that are Object.prototype's members (issue 20.10)", () => {
  const NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty"];
  const tokenBody = (group: string) => ({ name: "k", remain_quota: 0, expired_time: -1, unlimited_quota: true, group });

  it("are not usable groups for a key, on create or update", async () => {
    const u = await createUser({ username: "proto-keys" });
    const made = await call(tokens.POST, "POST", "/api/token/", { as: u, body: tokenBody("") });
    expect(made.json.success).toBe(true);
    const id = (await (await getDb()).token.findFirstOrThrow({ where: { user_id: u.id } })).id;
    for (const name of NAMES) {
      const refused = { success: false, message: `无权使用分组 ${name}` };
      expect((await call(tokens.POST, "POST", "/api/token/", { as: u, body: tokenBody(name) })).json, name).toEqual(refused);
      expect((await call(tokens.PUT, "PUT", "/api/token/", { as: u, body: { id, group: name } })).json, name).toEqual(refused);
    }
    expect(await (await getDb()).token.count({ where: { user_id: u.id, group: { in: NAMES } } })).toBe(0);
  });

  it("a user an admin put in such a group sees it as their own, and may use it for a key", async () => {
    const u = await createUser({ username: "proto-group" });
    for (const name of NAMES) {
      const edited = await call(users.PUT, "PUT", "/api/user/", { as: root, body: { id: u.id, group: name } });
      expect(edited.json, name).toMatchObject({ success: true, data: { group: name } });
      const listed = await call(selfGroups.GET, "GET", "/api/user/self/groups", { as: u });
      expect(Object.hasOwn(listed.json.data, name), name).toBe(true);
      expect(listed.json.data[name], name).toBe(OWN_GROUP_LABEL);
      const made = await call(tokens.POST, "POST", "/api/token/", { as: u, body: tokenBody(name) });
      expect(made.json.success, name).toBe(true);
    }
  });
});
