// Everything that sends e-mail, against a real SMTP listener on loopback (tests/mocks/smtp.ts):
// the mailer over the SMTP options, verification codes (domain whitelist, alias rule, limits,
// single use), registration with a code, the password reset end to end, and e-mail binding.
import { randomBytes } from "node:crypto";
import { createClient } from "redis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { MAIL_SEND_FAILED, sendMail, SMTP_NOT_CONFIGURED, smtpTransportOptions } from "@/lib/mail/mailer";
import { EMAIL_MSG } from "@/lib/users/email";
import { EMAIL_INVALID } from "@/lib/users/email-schemas";
import { MemoryCache, RedisCache, setSharedCache } from "@/lib/cache/shared";
import { setChannelStatus } from "@/lib/channels/routing";
import { call, createUser } from "@/tests/helpers/api";
import { startMockSmtp, type MockSmtp } from "@/tests/mocks/smtp";
import * as verification from "@/app/api/verification/route";
import * as resetPassword from "@/app/api/reset_password/route";
import * as resetConfirm from "@/app/api/user/reset/route";
import * as register from "@/app/api/user/register/route";
import * as login from "@/app/api/user/login/route";
import * as bind from "@/app/api/oauth/email/bind/route";
import * as self from "@/app/api/user/self/route";
import { testRedisUrl } from "@/tests/helpers/redis";

const REDIS_URL = testRedisUrl(0);
let smtp: MockSmtp;
let ipSeq = 0;
/** A fresh client address per call, so per-IP limits only bite where a test wants them. */
const nextIp = () => `10.9.${Math.floor(++ipSeq / 250)}.${ipSeq % 250}`;
let addrSeq = 0;
const address = (domain = "gmail.com") => `user${Date.now().toString(36)}${++addrSeq}@${domain}`;

const codeIn = (body: string) => /<strong>([0-9a-f]{6})<\/strong>/.exec(body)?.[1];

async function sendCode(email: string, ip = nextIp()) {
  return call(verification.GET, "GET", `/api/verification?email=${encodeURIComponent(email)}`, { ip });
}

beforeAll(async () => {
  smtp = await startMockSmtp();
  await updateOption("SMTPServer", "127.0.0.1");
  await updateOption("SMTPPort", String(smtp.port));
  await updateOption("SMTPAccount", "mailer@qiao.test");
  await updateOption("SMTPToken", "smtp-secret");
  await updateOption("SMTPFrom", "noreply@qiao.test");
  await updateOption("SMTPSSLEnabled", "false");
  await updateOption("SystemName", "桥站");
  await updateOption("ServerAddress", "https://qiao.example");
});
afterAll(async () => {
  await smtp.close();
});
beforeEach(() => {
  // Each test starts with no codes or send limits from another.
  setSharedCache(new MemoryCache());
});

describe("the mailer", () => {
  it("sets implicit TLS on port 465 or when SSL is on, plain with STARTTLS otherwise; 587 when unset", () => {
    const base = { SMTPServer: "smtp.x", SMTPAccount: "a", SMTPFrom: "", SMTPToken: "t", SystemName: "Q" };
    expect(smtpTransportOptions({ ...base, SMTPPort: 465, SMTPSSLEnabled: false })).toMatchObject({ port: 465, secure: true });
    expect(smtpTransportOptions({ ...base, SMTPPort: 587, SMTPSSLEnabled: false })).toMatchObject({ port: 587, secure: false });
    expect(smtpTransportOptions({ ...base, SMTPPort: 2525, SMTPSSLEnabled: true })).toMatchObject({ port: 2525, secure: true });
    expect(smtpTransportOptions({ ...base, SMTPPort: 0, SMTPSSLEnabled: false })).toMatchObject({ port: 587, secure: false });
    expect(smtpTransportOptions({ ...base, SMTPAccount: "", SMTPPort: 25, SMTPSSLEnabled: false }).auth).toBeUndefined();
  });

  it("delivers over plain SMTP with the account's login, from SystemName <SMTPFrom>, UTF-8 subject", async () => {
    const to = address();
    await sendMail({ to, subject: "主题 ✓", html: "<p>正文</p>" });
    const mail = await smtp.waitFor(to);
    expect(mail.user).toBe("mailer@qiao.test");
    expect(mail.from).toBe("noreply@qiao.test");
    expect(mail.raw).toMatch(/^From: =\?UTF-8\?[BQ]\?.+\?= <noreply@qiao\.test>/im);
    expect(mail.subject).toBe("主题 ✓");
    expect(mail.body).toContain("<p>正文</p>");
  });

  it("reads the options at every send: a change applies to the next mail without a restart", async () => {
    await updateOption("SMTPFrom", "changed@qiao.test");
    try {
      const to = address();
      await sendMail({ to, subject: "s", html: "h" });
      expect((await smtp.waitFor(to)).from).toBe("changed@qiao.test");
    } finally {
      await updateOption("SMTPFrom", "noreply@qiao.test");
    }
  });

  it("reports a refused login, and an unconfigured server, as envelope errors", async () => {
    smtp.refuseLogins(true);
    try {
      await expect(sendMail({ to: address(), subject: "s", html: "h" })).rejects.toMatchObject({ message: MAIL_SEND_FAILED, status: 502 });
    } finally {
      smtp.refuseLogins(false);
    }
    await updateOption("SMTPServer", "");
    try {
      await expect(sendMail({ to: address(), subject: "s", html: "h" })).rejects.toMatchObject({ message: SMTP_NOT_CONFIGURED });
    } finally {
      await updateOption("SMTPServer", "127.0.0.1");
    }
  });
});

describe("GET /api/verification", () => {
  it("mails a 6-character code valid for 10 minutes", async () => {
    const email = address();
    const res = await sendCode(email);
    expect(res.json).toEqual({ success: true, message: "验证码发送成功，请检查你的邮箱！", data: null });
    const mail = await smtp.waitFor(email);
    expect(mail.subject).toBe("桥站邮箱验证邮件");
    expect(codeIn(mail.body)).toMatch(/^[0-9a-f]{6}$/);
    expect(mail.body).toContain("验证码 10 分钟内有效");
  });

  it("refuses a malformed address", async () => {
    const res = await sendCode("not-an-address");
    expect(res.json.success).toBe(false);
    expect(res.json.message).toContain(EMAIL_INVALID);
  });

  it("applies the domain whitelist only while the restriction is on", async () => {
    await updateOption("EmailDomainWhitelist", "qq.com,example.org");
    await updateOption("EmailDomainRestrictionEnabled", "true");
    try {
      const refused = await sendCode(address("gmail.com"));
      expect(refused.json).toEqual({ success: false, message: EMAIL_MSG.domainNotAllowed });
      expect((await sendCode(address("EXAMPLE.org"))).json.success).toBe(true);
    } finally {
      await updateOption("EmailDomainRestrictionEnabled", "false");
    }
    expect((await sendCode(address("gmail.com"))).json.success).toBe(true);
  });

  it("refuses '+' and '.' in the local part while the alias restriction is on", async () => {
    await updateOption("EmailAliasRestrictionEnabled", "true");
    try {
      for (const email of [`a+b${++addrSeq}@gmail.com`, `a.b${++addrSeq}@gmail.com`]) {
        expect((await sendCode(email)).json).toEqual({ success: false, message: EMAIL_MSG.aliasNotAllowed });
      }
      expect((await sendCode(`ab${++addrSeq}@gmail.com`)).json.success).toBe(true);
    } finally {
      await updateOption("EmailAliasRestrictionEnabled", "false");
    }
    expect((await sendCode(`a.b${++addrSeq}@gmail.com`)).json.success).toBe(true);
  });

  it("refuses an address another account uses", async () => {
    const email = address();
    const u = await createUser({ username: `taken${++addrSeq}` });
    await (await getDb()).user.update({ where: { id: u.id }, data: { email } });
    expect((await sendCode(email)).json).toEqual({ success: false, message: EMAIL_MSG.taken });
  });

  it("sends one mail per address per 30 s, and at most 10 per client address an hour", async () => {
    const email = address();
    expect((await sendCode(email)).json.success).toBe(true);
    const again = await sendCode(email);
    expect(again.status).toBe(429);
    expect(again.json).toEqual({ success: false, message: EMAIL_MSG.tooSoon });
    expect(smtp.mails.filter((m) => m.to.includes(email))).toHaveLength(1);

    const ip = nextIp();
    for (let i = 0; i < 10; i++) expect((await sendCode(address(), ip)).json.success).toBe(true);
    expect((await sendCode(address(), ip)).status).toBe(429);
  });

  it("lets the address try again at once when the mail could not be sent", async () => {
    const email = address();
    smtp.refuseLogins(true);
    try {
      expect((await sendCode(email)).json).toMatchObject({ success: false, message: MAIL_SEND_FAILED });
    } finally {
      smtp.refuseLogins(false);
    }
    expect((await sendCode(email)).json.success).toBe(true);
  });

  it("needs a Turnstile token while Turnstile is on", async () => {
    await updateOption("TurnstileSiteKey", "site");
    await updateOption("TurnstileSecretKey", "secret");
    await updateOption("TurnstileCheckEnabled", "true");
    try {
      const res = await sendCode(address());
      expect(res.json).toEqual({ success: false, message: "Turnstile 校验失败，请刷新重试！" });
    } finally {
      await updateOption("TurnstileCheckEnabled", "false");
    }
  });
});

describe("registration with e-mail verification", () => {
  beforeAll(async () => {
    await updateOption("EmailVerificationEnabled", "true");
  });
  afterAll(async () => {
    await updateOption("EmailVerificationEnabled", "false");
  });

  const registerWith = (username: string, email: string, code: string) =>
    call(register.POST, "POST", "/api/user/register", {
      body: { username, password: "password123", password2: "password123", email, verification_code: code },
      ip: nextIp(),
    });

  it("needs the address and the code mailed to it; the code works once", async () => {
    const email = address();
    expect((await registerWith(`nocode${addrSeq}`, email, "")).json.message).toBe("管理员开启了邮箱验证，请输入邮箱地址和验证码");
    await sendCode(email);
    const code = codeIn((await smtp.waitFor(email)).body)!;
    expect((await registerWith(`wrong${addrSeq}`, email, "000000")).json).toEqual({ success: false, message: "验证码错误或已过期" });
    const name = `mailed${addrSeq}`;
    expect((await registerWith(name, email, code.toUpperCase())).json).toMatchObject({ success: true });
    const user = await (await getDb()).user.findFirstOrThrow({ where: { username: name } });
    expect(user.email).toBe(email);
    // Used: a second registration with the same code fails.
    expect((await registerWith(`again${addrSeq}`, email, code)).json.message).toBe("验证码错误或已过期");
  });

  it("accepts on one instance a code another mailed, through Redis, and only once", async () => {
    // Two instances: each its own connection to the same Redis, nothing in its memory; this run's
    // own key prefix, deleted at the end (other runs share the server).
    const prefix = `qiao-test:${randomBytes(6).toString("hex")}:`;
    const caches = [new RedisCache(REDIS_URL, { prefix }), new RedisCache(REDIS_URL, { prefix })];
    try {
      const email = address();
      setSharedCache(caches[0]!);
      await sendCode(email);
      const code = codeIn((await smtp.waitFor(email)).body)!;
      setSharedCache(caches[1]!);
      const name = `redis${addrSeq}`;
      expect((await registerWith(name, email, code)).json.success).toBe(true);
      setSharedCache(caches[0]!);
      expect((await registerWith(`${name}b`, email, code)).json.message).toBe("验证码错误或已过期");
    } finally {
      setSharedCache(new MemoryCache());
      await Promise.all(caches.map((c) => c.close()));
      const admin = await createClient({ url: REDIS_URL }).connect();
      for await (const keys of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) if (keys.length) await admin.del(keys);
      admin.destroy();
    }
  });

  it("drops the code after 5 wrong guesses", async () => {
    const email = address();
    await sendCode(email);
    const code = codeIn((await smtp.waitFor(email)).body)!;
    for (let i = 0; i < 5; i++) await registerWith(`guess${addrSeq}`, email, `bad${i}`);
    expect((await registerWith(`guess${addrSeq}`, email, code)).json.message).toBe("验证码错误或已过期");
  });
});

describe("password reset", () => {
  const resetLinkIn = (body: string) => /href="([^"]+)"/.exec(body)?.[1]?.replace(/&#38;/g, "&");

  it("mails a link to the confirm page; the token gives a new password once; old sessions end", async () => {
    const email = address();
    const u = await createUser({ username: `reset${++addrSeq}`, password: "old-password-1" });
    expect((await call(self.GET, "GET", "/api/user/self", { as: u })).status).toBe(200);
    await (await getDb()).user.update({ where: { id: u.id }, data: { email } });

    const sent = await call(resetPassword.GET, "GET", `/api/reset_password?email=${encodeURIComponent(email)}`, { ip: nextIp() });
    expect(sent.json).toEqual({ success: true, message: "重置邮件发送成功，请检查邮箱！", data: null });
    const mail = await smtp.waitFor(email);
    expect(mail.subject).toBe("桥站密码重置");
    const link = new URL(resetLinkIn(mail.body)!);
    expect(`${link.origin}${link.pathname}`).toBe("https://qiao.example/user/reset");
    expect(link.searchParams.get("email")).toBe(email);
    const token = link.searchParams.get("token")!;
    expect(token).toMatch(/^[0-9a-f]{32}$/);

    const confirmed = await call(resetConfirm.POST, "POST", "/api/user/reset", { body: { email, token } });
    expect(confirmed.json.success).toBe(true);
    const password = confirmed.json.data as string;
    expect(password).toMatch(/^[0-9a-f]{12}$/);

    const again = await call(resetConfirm.POST, "POST", "/api/user/reset", { body: { email, token } });
    expect(again.json).toEqual({ success: false, message: EMAIL_MSG.resetInvalid });

    const oldLogin = await call(login.POST, "POST", "/api/user/login", {
      body: { username: u.username, password: "old-password-1" },
      ip: nextIp(),
    });
    expect(oldLogin.json.success).toBe(false);
    const newLogin = await call(login.POST, "POST", "/api/user/login", { body: { username: u.username, password }, ip: nextIp() });
    expect(newLogin.json.success).toBe(true);
    // The session opened before the reset has ended.
    expect((await call(self.GET, "GET", "/api/user/self", { as: u })).status).toBe(401);
  });

  it("refuses an address no account has, a wrong token and a token for another address", async () => {
    const unknown = await call(resetPassword.GET, "GET", `/api/reset_password?email=${encodeURIComponent(address())}`, { ip: nextIp() });
    expect(unknown.json).toEqual({ success: false, message: EMAIL_MSG.notRegistered });

    const email = address();
    const u = await createUser({ username: `reset${++addrSeq}` });
    await (await getDb()).user.update({ where: { id: u.id }, data: { email } });
    await call(resetPassword.GET, "GET", `/api/reset_password?email=${encodeURIComponent(email)}`, { ip: nextIp() });
    const token = new URL(resetLinkIn((await smtp.waitFor(email)).body)!).searchParams.get("token")!;
    const wrong = await call(resetConfirm.POST, "POST", "/api/user/reset", { body: { email, token: "0".repeat(32) } });
    expect(wrong.json).toEqual({ success: false, message: EMAIL_MSG.resetInvalid });
    const other = await call(resetConfirm.POST, "POST", "/api/user/reset", { body: { email: address(), token } });
    expect(other.json).toEqual({ success: false, message: EMAIL_MSG.resetInvalid });
    // Still good for its own address.
    expect((await call(resetConfirm.POST, "POST", "/api/user/reset", { body: { email, token } })).json.success).toBe(true);
  });

  it("counts every request against the client's sensitive-call limit, found or not", async () => {
    const ip = nextIp();
    const ask = () => call(resetPassword.GET, "GET", `/api/reset_password?email=${encodeURIComponent(address())}`, { ip });
    for (let i = 0; i < 20; i++) expect((await ask()).json.message).toBe(EMAIL_MSG.notRegistered);
    const limited = await ask();
    expect(limited.status).toBe(429);
    expect(limited.json).toEqual({ success: false, message: "请求次数过多，请稍后再试！" });
  });

  it("answers a missing token with the envelope and changes nothing", async () => {
    const res = await call(resetConfirm.POST, "POST", "/api/user/reset", { body: { email: address() } });
    expect(res.status).toBe(400);
    expect(res.json.success).toBe(false);
  });
});

describe("GET /api/oauth/email/bind", () => {
  it("binds the address the code was mailed to, once", async () => {
    const u = await createUser({ username: `bind${++addrSeq}` });
    const email = address();
    await sendCode(email);
    const code = codeIn((await smtp.waitFor(email)).body)!;
    const path = (c: string) => `/api/oauth/email/bind?email=${encodeURIComponent(email)}&code=${c}`;
    expect((await call(bind.GET, "GET", path("ffffff"), { as: u })).json).toEqual({ success: false, message: EMAIL_MSG.codeInvalid });
    expect((await call(bind.GET, "GET", path(code), { as: u })).json).toEqual({ success: true, message: EMAIL_MSG.bound, data: null });
    expect((await (await getDb()).user.findUniqueOrThrow({ where: { id: u.id } })).email).toBe(email);
    expect((await call(bind.GET, "GET", path(code), { as: u })).json.success).toBe(false);
  });

  it("needs a session", async () => {
    const res = await call(bind.GET, "GET", `/api/oauth/email/bind?email=${encodeURIComponent(address())}&code=abcdef`);
    expect(res.status).toBe(401);
  });
});

describe("channels the system turns off or on", () => {
  it("are mailed to root's address with the reason", async () => {
    const db = await getDb();
    const root = await db.user.findFirstOrThrow({ where: { username: "root" } });
    const rootEmail = `root${++addrSeq}@qiao.test`;
    await db.user.update({ where: { id: root.id }, data: { email: rootEmail } });
    try {
      const channel = await db.channel.create({ data: { name: "上游甲", key: "sk-x", status: 1 } as never });
      expect(await setChannelStatus(channel.id, 3, "余额不足")).toBe(true);
      const off = await smtp.waitFor(rootEmail);
      expect(off.subject).toBe(`通道「上游甲」（#${channel.id}）已被禁用`);
      expect(off.body).toContain("原因：余额不足");
      expect(await setChannelStatus(channel.id, 1)).toBe(true);
      await expect.poll(() => smtp.mails.filter((m) => m.to.includes(rootEmail)).length).toBe(2);
      expect(smtp.mails.filter((m) => m.to.includes(rootEmail))[1]!.subject).toBe(`通道「上游甲」（#${channel.id}）已被启用`);
      // No change, no mail.
      expect(await setChannelStatus(channel.id, 1)).toBe(false);
      await db.channel.delete({ where: { id: channel.id } });
    } finally {
      await db.user.update({ where: { id: root.id }, data: { email: "" } });
    }
  });
});
