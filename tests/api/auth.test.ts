import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { call, cookieFrom, createUser, sessionCookieFor } from "@/tests/helpers/api";
import * as login from "@/app/api/user/login/route";
import * as logout from "@/app/api/user/logout/route";
import * as register from "@/app/api/user/register/route";
import * as self from "@/app/api/user/self/route";
import * as accessToken from "@/app/api/user/token/route";
import { markVerified } from "@/tests/helpers/step-up";
import * as option from "@/app/api/option/route";
import { updateOption } from "@/lib/options";
import { LOGIN_FAILED } from "@/lib/users/auth";

beforeAll(async () => {
  await getDb();
});

async function rootCaller() {
  const row = await (await getDb()).user.findUniqueOrThrow({ where: { username: "root" } });
  return { id: row.id, cookie: await sessionCookieFor(row.id) };
}

describe("login", () => {
  it("signs root in with the default password and sets an HttpOnly session cookie", async () => {
    const res = await call(login.POST, "POST", "/api/user/login", { body: { username: "root", password: "123456" } });
    expect(res.status).toBe(200);
    expect(res.json.success).toBe(true);
    expect(res.json.data).toMatchObject({ username: "root", role: 100 });
    expect(res.json.data.password).toBeUndefined();
    const setCookie = res.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^qiao_session=/);
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Lax");
  });

  it("gives one message for an unknown user and a wrong password", async () => {
    const unknown = await call(login.POST, "POST", "/api/user/login", {
      body: { username: "nobody", password: "whatever1" },
      ip: "10.0.0.1",
    });
    const wrong = await call(login.POST, "POST", "/api/user/login", { body: { username: "root", password: "wrong-pass" }, ip: "10.0.0.2" });
    expect(unknown.json).toEqual({ success: false, message: LOGIN_FAILED });
    expect(wrong.json).toEqual({ success: false, message: LOGIN_FAILED });
    expect(unknown.status).toBe(wrong.status);
  });

  it("asks for username and password when they are missing", async () => {
    const res = await call(login.POST, "POST", "/api/user/login", { body: { username: " ", password: "" } });
    expect(res.json.success).toBe(false);
    expect(res.json.message).toContain("请输入用户名和密码");
  });

  it("refuses a banned user with the same message", async () => {
    await createUser({ username: "banned", password: "password123", status: 2 });
    const res = await call(login.POST, "POST", "/api/user/login", {
      body: { username: "banned", password: "password123" },
      ip: "10.0.0.3",
    });
    expect(res.json).toEqual({ success: false, message: LOGIN_FAILED });
  });

  it("honours PasswordLoginEnabled", async () => {
    await updateOption("PasswordLoginEnabled", "false");
    try {
      const res = await call(login.POST, "POST", "/api/user/login", { body: { username: "root", password: "123456" }, ip: "10.0.0.4" });
      expect(res.json.success).toBe(false);
      expect(res.json.message).toBe("管理员关闭了密码登录");
    } finally {
      await updateOption("PasswordLoginEnabled", "true");
    }
  });
});

describe("rate limits", () => {
  it("limits login attempts per IP, right passwords too", async () => {
    await createUser({ username: "frequent", password: "password123" });
    let last = { status: 0, json: { success: true, message: "" } };
    for (let i = 0; i < 21; i++) {
      last = await call(login.POST, "POST", "/api/user/login", {
        body: { username: "frequent", password: "password123" },
        ip: "192.0.2.50",
      });
      if (i < 20) expect(last.status).toBe(200);
    }
    expect(last.status).toBe(429);
    expect(last.json.message).toBe("请求次数过多，请稍后再试！");
    const other = await call(login.POST, "POST", "/api/user/login", { body: { username: "root", password: "123456" }, ip: "192.0.2.51" });
    expect(other.status).toBe(200);
  });

  it("locks a username after repeated failures, from any address", async () => {
    await createUser({ username: "victim", password: "password123" });
    for (let i = 0; i < 5; i++) {
      const res = await call(login.POST, "POST", "/api/user/login", {
        body: { username: "victim", password: "bad-password" },
        ip: `198.51.100.${i}`,
      });
      expect(res.status).toBe(400);
    }
    const locked = await call(login.POST, "POST", "/api/user/login", {
      body: { username: "victim", password: "password123" },
      ip: "198.51.100.99",
    });
    expect(locked.status).toBe(429);
    expect(locked.json.success).toBe(false);
  });

  it("limits registrations per IP", async () => {
    let status = 0;
    for (let i = 0; i < 21; i++) {
      const res = await call(register.POST, "POST", "/api/user/register", {
        body: { username: `flood${i}`, password: "password123", password2: "password123" },
        ip: "203.0.113.77",
      });
      status = res.status;
    }
    expect(status).toBe(429);
  });
});

describe("register", () => {
  let n = 0;
  const ip = () => `203.0.113.${++n}`;

  it("creates an ordinary user who can then sign in", async () => {
    const res = await call(register.POST, "POST", "/api/user/register", {
      body: { username: "alice", password: "alicepass1", password2: "alicepass1" },
      ip: ip(),
    });
    expect(res.json).toMatchObject({ success: true });
    const db = await getDb();
    const alice = await db.user.findUniqueOrThrow({ where: { username: "alice" } });
    expect(alice.role).toBe(1);
    expect(alice.password).not.toBe("alicepass1");
    expect(alice.aff_code).toMatch(/^[A-Za-z0-9]{6}$/);
    const signIn = await call(login.POST, "POST", "/api/user/login", { body: { username: "alice", password: "alicepass1" }, ip: ip() });
    expect(signIn.json.success).toBe(true);
  });

  it("rejects a short password, differing confirmation and a taken name without writing a row", async () => {
    const db = await getDb();
    const before = await db.user.count();
    const short = await call(register.POST, "POST", "/api/user/register", {
      body: { username: "bob", password: "short", password2: "short" },
      ip: ip(),
    });
    expect(short.json.message).toContain("密码长度不得小于 8 位！");
    const long = await call(register.POST, "POST", "/api/user/register", {
      body: { username: "bob", password: "x".repeat(21), password2: "x".repeat(21) },
      ip: ip(),
    });
    expect(long.json.success).toBe(false);
    const differ = await call(register.POST, "POST", "/api/user/register", {
      body: { username: "bob", password: "password123", password2: "password124" },
      ip: ip(),
    });
    expect(differ.json.message).toContain("两次输入的密码不一致");
    const taken = await call(register.POST, "POST", "/api/user/register", {
      body: { username: "root", password: "password123", password2: "password123" },
      ip: ip(),
    });
    expect(taken.json.message).toBe("用户名已存在，或已注销");
    const malformed = await call(register.POST, "POST", "/api/user/register", { body: "{not json", ip: ip() });
    expect(malformed.status).toBe(400);
    expect(await db.user.count()).toBe(before);
  });

  it("honours RegisterEnabled and PasswordRegisterEnabled", async () => {
    for (const key of ["RegisterEnabled", "PasswordRegisterEnabled"]) {
      await updateOption(key, "false");
      const res = await call(register.POST, "POST", "/api/user/register", {
        body: { username: `closed${key.length}`, password: "password123", password2: "password123" },
        ip: ip(),
      });
      expect(res.json.success).toBe(false);
      expect(res.status).toBe(403);
      await updateOption(key, "true");
    }
  });

  it("credits new-user and invite quotas and rewards the inviter's aff_quota", async () => {
    const db = await getDb();
    await updateOption("QuotaForNewUser", "1000");
    await updateOption("QuotaForInvitee", "200");
    await updateOption("QuotaForInviter", "300");
    const inviter = await db.user.findUniqueOrThrow({ where: { username: "alice" } });
    const res = await call(register.POST, "POST", "/api/user/register", {
      body: { username: "invited", password: "password123", password2: "password123", aff_code: inviter.aff_code },
      ip: ip(),
    });
    expect(res.json.success).toBe(true);
    const invited = await db.user.findUniqueOrThrow({ where: { username: "invited" } });
    expect(invited.quota).toBe(1200n);
    expect(invited.inviter_id).toBe(inviter.id);
    const after = await db.user.findUniqueOrThrow({ where: { id: inviter.id } });
    expect(after.aff_count).toBe(inviter.aff_count + 1);
    expect(after.aff_quota).toBe(inviter.aff_quota + 300n);
    expect(after.quota).toBe(inviter.quota);
    expect(await db.log.count({ where: { user_id: invited.id, type: 4 } })).toBe(2);
    for (const k of ["QuotaForNewUser", "QuotaForInvitee", "QuotaForInviter"]) await updateOption(k, "0");
  });
});

describe("sessions and the New-Api-User header", () => {
  it("requires the header to equal the session's user", async () => {
    const u = await createUser({ username: "carol" });
    const missing = await call(self.GET, "GET", "/api/user/self", { cookie: u.cookie, userHeader: null });
    expect(missing.status).toBe(401);
    const other = await call(self.GET, "GET", "/api/user/self", { cookie: u.cookie, userHeader: String(u.id + 1) });
    expect(other.status).toBe(401);
    const junk = await call(self.GET, "GET", "/api/user/self", { cookie: u.cookie, userHeader: "1 OR 1=1" });
    expect(junk.status).toBe(401);
    const good = await call(self.GET, "GET", "/api/user/self", { as: u });
    expect(good.status).toBe(200);
    expect(good.json.data.username).toBe("carol");
  });

  it("rejects a cookie signed with another secret", async () => {
    const { SignJWT } = await import("jose");
    const forged = await new SignJWT({ username: "root", role: 100, ver: 0 })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("1")
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode("not-the-secret"));
    const res = await call(self.GET, "GET", "/api/user/self", { cookie: `qiao_session=${forged}`, userHeader: "1" });
    expect(res.status).toBe(401);
  });

  it("answers 401 without any credentials, and /api sends no CORS headers", async () => {
    const res = await call(self.GET, "GET", "/api/user/self", { headers: { origin: "https://evil.example" } });
    expect(res.status).toBe(401);
    expect(res.json.success).toBe(false);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("logout clears the cookie", async () => {
    const res = await call(logout.GET, "GET", "/api/user/logout");
    expect(res.headers.get("set-cookie")).toMatch(/^qiao_session=;.*Max-Age=0/);
  });

  it("ends other sessions when the password changes, and keeps the caller signed in", async () => {
    const u = await createUser({ username: "dave", password: "password123" });
    const wrongOld = await call(self.PUT, "PUT", "/api/user/self", {
      as: u,
      body: { password: "newpassword1", original_password: "nope" },
    });
    expect(wrongOld.json.message).toBe("原密码错误");
    const changed = await call(self.PUT, "PUT", "/api/user/self", {
      as: u,
      body: { password: "newpassword1", original_password: "password123" },
    });
    expect(changed.json.success).toBe(true);
    const fresh = cookieFrom(changed.headers.get("set-cookie"));
    expect((await call(self.GET, "GET", "/api/user/self", { as: u })).status).toBe(401);
    expect((await call(self.GET, "GET", "/api/user/self", { cookie: fresh, userHeader: String(u.id) })).status).toBe(200);
  });

  it("a banned user's session stops working at once", async () => {
    const u = await createUser({ username: "erin" });
    const db = await getDb();
    await db.user.update({ where: { id: u.id }, data: { status: 2 } });
    const res = await call(self.GET, "GET", "/api/user/self", { as: u });
    expect(res.status).toBe(403);
    expect(res.json.message).toBe("用户已被封禁");
  });
});

describe("system access token", () => {
  it("authenticates through Authorization without the header, and is stored only as a hash", async () => {
    const u = await createUser({ username: "frank" });
    await markVerified(u.cookie); // a new token asks for step-up (tests/api/step-up.test.ts)
    const issued = await call(accessToken.GET, "GET", "/api/user/token", { as: u });
    const token = issued.json.data as string;
    expect(token.length).toBeGreaterThanOrEqual(32);
    const db = await getDb();
    const row = await db.user.findUniqueOrThrow({ where: { id: u.id } });
    expect(row.access_token_hash).not.toBe(token);
    expect(JSON.stringify(row, (_k, v) => (typeof v === "bigint" ? String(v) : v))).not.toContain(token);
    const viaToken = await call(self.GET, "GET", "/api/user/self", { headers: { authorization: `Bearer ${token}` } });
    expect(viaToken.json.data.username).toBe("frank");
    expect(JSON.stringify(viaToken.json)).not.toContain(token);
    await call(accessToken.GET, "GET", "/api/user/token", { as: u });
    expect((await call(self.GET, "GET", "/api/user/self", { headers: { authorization: token } })).status).toBe(401);
  });
});

describe("role tiers", () => {
  it("refuses root-only option calls to users and admins", async () => {
    const user = await createUser({ username: "gina", role: 1 });
    const admin = await createUser({ username: "hank", role: 10 });
    expect((await call(option.GET, "GET", "/api/option/", { as: user })).status).toBe(403);
    expect((await call(option.GET, "GET", "/api/option/", { as: admin })).status).toBe(403);
    expect((await call(option.GET, "GET", "/api/option/", { as: await rootCaller() })).status).toBe(200);
  });
});

describe("delete self", () => {
  it("soft-deletes an ordinary user, who can no longer sign in; root cannot delete itself", async () => {
    const u = await createUser({ username: "ivan", password: "password123" });
    const res = await call(self.DELETE, "DELETE", "/api/user/self", { as: u });
    expect(res.json.success).toBe(true);
    const db = await getDb();
    const row = await db.user.findUniqueOrThrow({ where: { id: u.id } });
    expect(row.deleted_at).not.toBeNull();
    const again = await call(login.POST, "POST", "/api/user/login", {
      body: { username: "ivan", password: "password123" },
      ip: "198.18.0.1",
    });
    expect(again.json.success).toBe(false);
    expect((await call(self.DELETE, "DELETE", "/api/user/self", { as: await rootCaller() })).status).toBe(403);
  });
});
