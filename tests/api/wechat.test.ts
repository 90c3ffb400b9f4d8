// WeChat sign-in and binding through a wechat-server (a mock on loopback, tests/mocks/wechat.ts):
// GET /api/oauth/wechat?code signs in the bound account or signs up a new one (with the invitation
// rewards), GET|POST /api/oauth/wechat/bind binds the code's openid to the caller. Every refusal:
// an expired, reused or unknown code, a wrong token to wechat-server, an openid on another
// account, a disabled or deleted account, registration off, WeChat off, a request from another site.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import * as signIn from "@/app/api/oauth/wechat/route";
import * as bind from "@/app/api/oauth/wechat/bind/route";
import * as statusRoute from "@/app/api/status/route";
import { PROVIDER_ACCOUNT_MSG } from "@/lib/accounts/provider-accounts";
import { WECHAT_DISPLAY_NAME, WECHAT_MSG } from "@/lib/accounts/wechat";
import { BANNED_MESSAGE } from "@/lib/auth/authenticate";
import { NAVIGATION_MSG } from "@/lib/auth/navigation";
import { PENDING_2FA_COOKIE, SIGN_IN_MSG } from "@/lib/auth/sign-in";
import { SESSION_COOKIE } from "@/lib/auth/session";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { call, cookieFrom, createUser } from "@/tests/helpers/api";
import { type MockWeChatServer, startMockWeChatServer, WECHAT_CODE_VALID_MS } from "@/tests/mocks/wechat";

const TOKEN = "wx-server-token";
let wx: MockWeChatServer;
let seq = 0;
/** A fresh client address per call, so the per-address limit never bites. */
const freshIp = () => `198.51.${Math.floor(++seq / 250)}.${seq % 250}`;
const openId = () => `o-${Date.now().toString(36)}-${++seq}`;

const wechatSignIn = (code: string, extra: { aff?: string; headers?: Record<string, string> } = {}) => {
  const query = new URLSearchParams({ code, ...(extra.aff ? { aff: extra.aff } : {}) });
  return call(signIn.GET, "GET", `/api/oauth/wechat?${query}`, { ip: freshIp(), headers: extra.headers });
};
const bindGet = (as: { id: number; cookie: string }, code: string) =>
  call(bind.GET, "GET", `/api/oauth/wechat/bind?code=${encodeURIComponent(code)}`, { as, ip: freshIp() });
const userBy = (wechat_id: string) => getDb().then((db) => db.user.findMany({ where: { wechat_id } }));

beforeAll(async () => {
  wx = await startMockWeChatServer({ token: TOKEN });
  await updateOption("WeChatServerAddress", wx.url);
  await updateOption("WeChatServerToken", TOKEN);
  await updateOption("WeChatAccountQRCodeImageURL", wx.qrcodeUrl);
  await updateOption("WeChatAuthEnabled", "true");
});
afterAll(async () => {
  await updateOption("WeChatAuthEnabled", "false");
  await wx.close();
});
beforeEach(async () => {
  await updateOption("RegisterEnabled", "true");
  await updateOption("WeChatServerToken", TOKEN);
});

describe("GET /api/oauth/wechat", () => {
  it("signs up a new account for an unknown openid, with the start quota and both invitation rewards, exactly", async () => {
    await updateOption("QuotaForNewUser", "1000");
    await updateOption("QuotaForInvitee", "300");
    await updateOption("QuotaForInviter", "200");
    const inviter = await createUser({ username: "wx-inviter", quota: 5 });
    const db = await getDb();
    await db.user.update({ where: { id: inviter.id }, data: { aff_code: "WXAF" } });

    const id = openId();
    const res = await wechatSignIn(wx.issueCode(id), { aff: "WXAF" });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ success: true, message: "", data: { wechat_id: id, display_name: WECHAT_DISPLAY_NAME, quota: 1300 } });
    expect(res.json.data.username).toMatch(/^wechat_[0-9a-f]{8}$/);
    expect(res.headers.get("set-cookie")).toContain(`${SESSION_COOKIE}=`);

    const [created] = await userBy(id);
    expect(created).toMatchObject({ id: res.json.data.id, password: "", inviter_id: inviter.id, quota: 1300n });
    const after = await db.user.findUniqueOrThrow({ where: { id: inviter.id } });
    expect(after).toMatchObject({ quota: 5n, aff_count: 1, aff_quota: 200n, aff_history_quota: 200n });
    const sessions = await db.userSession.findMany({ where: { user_id: created!.id }, select: { method: true } });
    expect(sessions).toEqual([{ method: "wechat" }]);
  });

  it("signs the bound account in again with a new code, without another account", async () => {
    const id = openId();
    const first = await wechatSignIn(wx.issueCode(id));
    const again = await wechatSignIn(wx.issueCode(id));
    expect(again.json).toMatchObject({ success: true, data: { id: first.json.data.id } });
    expect(await userBy(id)).toHaveLength(1);
  });

  it("refuses a code three minutes old (wechat-server's validity) and creates nothing", async () => {
    const id = openId();
    const code = wx.issueCode(id);
    wx.advance(WECHAT_CODE_VALID_MS);
    const res = await wechatSignIn(code);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ success: false, message: WECHAT_MSG.badCode });
    expect(await userBy(id)).toHaveLength(0);
    // Just under three minutes is still fine.
    const fresh = wx.issueCode(id);
    wx.advance(WECHAT_CODE_VALID_MS - 5_000);
    expect((await wechatSignIn(fresh)).json.success).toBe(true);
  });

  it("takes a code once, though wechat-server would answer it again", async () => {
    const code = wx.issueCode(openId());
    expect((await wechatSignIn(code)).json.success).toBe(true);
    expect((await wechatSignIn(code)).json).toEqual({ success: false, message: WECHAT_MSG.usedCode });
  });

  it("refuses an unknown code, and a malformed one without asking wechat-server", async () => {
    expect((await wechatSignIn("999999999")).json).toEqual({ success: false, message: WECHAT_MSG.badCode });
    const asked = wx.lookups.length;
    const res = await wechatSignIn("12 34/../x");
    expect(res.json).toEqual({ success: false, message: `参数错误：code: ${WECHAT_MSG.badCode}` });
    expect(wx.lookups.length).toBe(asked);
  });

  it("sends wechat-server its token, and says so when wechat-server refuses a wrong one", async () => {
    const code = wx.issueCode(openId());
    await wechatSignIn(code);
    expect(wx.lookups.at(-1)).toEqual({ code, authorization: TOKEN });

    await updateOption("WeChatServerToken", "not-the-token");
    const id = openId();
    const res = await wechatSignIn(wx.issueCode(id));
    expect(res.status).toBe(502);
    expect(res.json).toEqual({ success: false, message: WECHAT_MSG.refused("无权进行此操作，未登录或 token 无效") });
    expect(wx.lookups.at(-1)?.authorization).toBe("not-the-token");
    expect(await userBy(id)).toHaveLength(0);
  });

  it("says the service is unreachable when wechat-server does not answer", async () => {
    // A port that was just free: nothing listens there.
    const gone = await startMockWeChatServer({ token: TOKEN });
    await gone.close();
    await updateOption("WeChatServerAddress", gone.url);
    try {
      const res = await wechatSignIn("123456");
      expect(res.status).toBe(502);
      expect(res.json).toEqual({ success: false, message: WECHAT_MSG.unreachable });
    } finally {
      await updateOption("WeChatServerAddress", wx.url);
    }
  });

  it("refuses a disabled account and a deleted one", async () => {
    const banned = await createUser({ username: "wx-banned", status: 2 });
    const gone = await createUser({ username: "wx-gone" });
    const db = await getDb();
    const [bannedId, goneId] = [openId(), openId()];
    await db.user.update({ where: { id: banned.id }, data: { wechat_id: bannedId } });
    await db.user.update({ where: { id: gone.id }, data: { wechat_id: goneId, deleted_at: new Date() } });

    const refused = await wechatSignIn(wx.issueCode(bannedId));
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ success: false, message: BANNED_MESSAGE });
    expect(refused.headers.get("set-cookie")).toBeNull();
    expect((await wechatSignIn(wx.issueCode(goneId))).json).toEqual({ success: false, message: PROVIDER_ACCOUNT_MSG.deleted });
    expect(await userBy(goneId)).toHaveLength(1);
  });

  it("with registration off, signs in a bound account but makes no new one", async () => {
    const bound = await createUser({ username: "wx-reg-off" });
    const boundId = openId();
    await (await getDb()).user.update({ where: { id: bound.id }, data: { wechat_id: boundId } });
    await updateOption("RegisterEnabled", "false");
    const id = openId();
    expect((await wechatSignIn(wx.issueCode(id))).json).toEqual({ success: false, message: "管理员关闭了新用户注册" });
    expect(await userBy(id)).toHaveLength(0);
    expect((await wechatSignIn(wx.issueCode(boundId))).json).toMatchObject({ success: true, data: { id: bound.id } });
  });

  it("asks for the second factor of an account with two-factor on, without a session", async () => {
    const u = await createUser({ username: "wx-2fa" });
    const id = openId();
    const db = await getDb();
    await db.user.update({ where: { id: u.id }, data: { wechat_id: id } });
    await db.twoFactor.create({ data: { user_id: u.id, secret_enc: "sealed", enabled: true, created_at: 1 } });
    const sessions = () => db.userSession.findMany({ where: { user_id: u.id }, select: { id: true } });
    const before = await sessions();
    const res = await wechatSignIn(wx.issueCode(id));
    expect(res.json).toEqual({ success: true, message: SIGN_IN_MSG.needCode, data: { require_2fa: true } });
    expect(cookieFrom(res.headers.get("set-cookie"))).toMatch(new RegExp(`^${PENDING_2FA_COOKIE}=.+`));
    expect(await sessions()).toEqual(before);
  });

  it("refuses a sign-in another site started (a link or image there), before asking wechat-server", async () => {
    const asked = wx.lookups.length;
    const res = await wechatSignIn(wx.issueCode(openId()), { headers: { "sec-fetch-site": "cross-site" } });
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ success: false, message: NAVIGATION_MSG.crossSite });
    expect(wx.lookups.length).toBe(asked);
    // From our own page it goes through.
    expect((await wechatSignIn(wx.issueCode(openId()), { headers: { "sec-fetch-site": "same-origin" } })).json.success).toBe(true);
  });

  it("is refused while WeChat sign-in is off, and /api/status says whether it is on", async () => {
    const on = await call(statusRoute.GET, "GET", "/api/status");
    expect(on.json.data).toMatchObject({ wechat_login: true, wechat_qrcode: wx.qrcodeUrl });
    expect(JSON.stringify(on.json.data)).not.toContain(TOKEN);
    await updateOption("WeChatAuthEnabled", "false");
    try {
      const res = await wechatSignIn(wx.issueCode(openId()));
      expect(res.status).toBe(403);
      expect(res.json).toEqual({ success: false, message: WECHAT_MSG.disabled });
      expect((await call(statusRoute.GET, "GET", "/api/status")).json.data.wechat_login).toBe(false);
    } finally {
      await updateOption("WeChatAuthEnabled", "true");
    }
  });
});

describe("/api/oauth/wechat/bind", () => {
  it("binds the code's openid to the caller (GET ?code, and new-api's POST {code})", async () => {
    const u = await createUser({ username: "wx-binder" });
    const id = openId();
    const res = await bindGet(u, wx.issueCode(id));
    expect(res.json).toEqual({ success: true, message: WECHAT_MSG.bound, data: null });
    expect((await userBy(id)).map((r) => r.id)).toEqual([u.id]);

    const other = openId();
    const posted = await call(bind.POST, "POST", "/api/oauth/wechat/bind", { as: u, body: { code: wx.issueCode(other) }, ip: freshIp() });
    expect(posted.json.success).toBe(true);
    expect((await userBy(other)).map((r) => r.id)).toEqual([u.id]);
    expect(await userBy(id)).toHaveLength(0);
    // The bound WeChat account now signs in to it.
    expect((await wechatSignIn(wx.issueCode(other))).json).toMatchObject({ success: true, data: { id: u.id } });
  });

  it("refuses an openid bound to another account, deleted ones included, and changes nothing", async () => {
    const owner = await createUser({ username: "wx-owner" });
    const deleted = await createUser({ username: "wx-deleted-owner" });
    const taker = await createUser({ username: "wx-taker" });
    const [taken, kept] = [openId(), openId()];
    const db = await getDb();
    await db.user.update({ where: { id: owner.id }, data: { wechat_id: taken } });
    await db.user.update({ where: { id: deleted.id }, data: { wechat_id: kept, deleted_at: new Date() } });
    for (const id of [taken, kept]) {
      const res = await bindGet(taker, wx.issueCode(id));
      expect(res.json).toEqual({ success: false, message: WECHAT_MSG.taken });
    }
    expect((await db.user.findUniqueOrThrow({ where: { id: taker.id } })).wechat_id).toBe("");
    expect((await userBy(taken)).map((r) => r.id)).toEqual([owner.id]);
  });

  it("refuses an expired code, a caller without New-Api-User, and no session at all", async () => {
    const u = await createUser({ username: "wx-bind-refusals" });
    const code = wx.issueCode(openId());
    wx.advance(WECHAT_CODE_VALID_MS);
    expect((await bindGet(u, code)).json).toEqual({ success: false, message: WECHAT_MSG.badCode });

    const fresh = wx.issueCode(openId());
    const noHeader = await call(bind.GET, "GET", `/api/oauth/wechat/bind?code=${fresh}`, { cookie: u.cookie, ip: freshIp() });
    expect(noHeader.status).toBe(401);
    const anonymous = await call(bind.GET, "GET", `/api/oauth/wechat/bind?code=${fresh}`, { ip: freshIp() });
    expect(anonymous.status).toBe(401);
    expect(await (await getDb()).user.findUniqueOrThrow({ where: { id: u.id } })).toMatchObject({ wechat_id: "" });
  });
});
