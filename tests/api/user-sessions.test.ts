// The account's own sessions (personal settings → 登录会话): the list with the caller's marked
// current, ending one, ending all the others, never another account's; an ended session's cookie is
// refused by /api, the console's page guard and the playground on both relay entries; a password
// change keeps only the caller; an admin's ban or password reset ends every session of the user.
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as sessionsRoute from "@/app/api/user/self/sessions/route";
import * as sessionRoute from "@/app/api/user/self/sessions/[id]/route";
import * as revokeOthers from "@/app/api/user/self/sessions/revoke_others/route";
import * as self from "@/app/api/user/self/route";
import * as users from "@/app/api/user/route";
import * as manage from "@/app/api/user/manage/route";
import { OWN_SESSION_MSG, type OwnSession } from "@/lib/accounts/sessions";
import { UNKNOWN_DEVICE } from "@/lib/accounts/user-agent";
import { decodeSession, encodeSession } from "@/lib/auth/session";
import { createSessionRow, listSessions, type SignInMethod } from "@/lib/auth/sessions";
import { getDb } from "@/lib/db";
import { clientIpHeaders } from "@/lib/net/client-ip";
import { createAccessToken } from "@/lib/users/self";
import { proxy } from "@/proxy";
import { call, cookieFrom, createUser } from "@/tests/helpers/api";
import { clearRelayData, ENTRIES, type RelayServer, seedChannel, startRelay } from "@/tests/helpers/relay";
import { type OpenAIMock, startOpenAIMock } from "@/tests/mocks/openai-upstream";

const MAC_CHROME = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const IPHONE_SAFARI =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1";

type Signed = { id: number; cookie: string; jti: string };

/** Signs `user` in once more, as a browser with this User-Agent at this address would. */
async function signIn(user: { id: number }, ua: string, ip: string, method: SignInMethod = "password"): Promise<Signed> {
  const u = await (await getDb()).user.findUniqueOrThrow({ where: { id: user.id } });
  const headers = new Headers({ "user-agent": ua, ...clientIpHeaders(ip) });
  const jti = await createSessionRow(headers, u.id, method);
  const value = await encodeSession({ id: u.id, username: u.username, role: u.role, ver: u.auth_version, jti });
  return { id: u.id, cookie: `qiao_session=${value}`, jti };
}

const jtiOf = async (cookie: string) => (await decodeSession(cookie.replace(/^qiao_session=/, "")))!.jti;
const list = (as: { id: number; cookie: string }) => call(sessionsRoute.GET, "GET", "/api/user/self/sessions", { as });
const end = (as: { id: number; cookie: string }, id: string) =>
  call(sessionRoute.DELETE, "DELETE", `/api/user/self/sessions/${id}`, { as, params: { id } });
const endOthers = (as: { id: number; cookie: string }) => call(revokeOthers.POST, "POST", "/api/user/self/sessions/revoke_others", { as });
const selfStatus = async (as: { id: number; cookie: string }) => (await call(self.GET, "GET", "/api/user/self", { as })).status;

/** What the console's page guard does with this cookie on a page that needs a session. */
async function pageGuard(cookie: string) {
  const res = await proxy(new NextRequest("http://localhost/setting", { headers: { cookie } }));
  return res.headers.get("location") ?? "next";
}

let seq = 0;
const fresh = (prefix: string) => createUser({ username: `${prefix}${++seq}`, password: "password123", quota: 5_000_000 });

describe("GET /api/user/self/sessions", () => {
  it("lists the account's sessions with the caller's first and marked current; nobody else's", async () => {
    const u = await fresh("list");
    const mac = await signIn(u, MAC_CHROME, "203.0.113.7", "github");
    const phone = await signIn(u, IPHONE_SAFARI, "198.51.100.20", "passkey");
    const stranger = await fresh("stranger");
    await signIn(stranger, MAC_CHROME, "192.0.2.1");

    const res = await list(phone);
    expect(res.status).toBe(200);
    const sessions: OwnSession[] = res.json.data;
    expect(sessions.map((s) => s.id).sort()).toEqual([await jtiOf(u.cookie), mac.jti, phone.jti].sort());
    expect(sessions[0]).toMatchObject({ id: phone.jti, current: true, device: "Safari · iPhone", ip: "198.51.100.20", method: "passkey" });
    expect(sessions.filter((s) => s.current)).toHaveLength(1);
    const macRow = sessions.find((s) => s.id === mac.jti)!;
    expect(macRow).toMatchObject({ current: false, device: "Chrome · macOS", ip: "203.0.113.7", method: "github", user_agent: MAC_CHROME });
    expect(macRow.created_at).toBeGreaterThan(0);
    expect(macRow.last_seen).toBeGreaterThanOrEqual(macRow.created_at);
    // The helper's own sign-in, with the test User-Agent, is named by its product token.
    expect(sessions.find((s) => s.user_agent === "qiao-tests")?.device).toBe("qiao-tests");
  });

  it("needs a signed-in caller", async () => {
    const res = await call(sessionsRoute.GET, "GET", "/api/user/self/sessions");
    expect(res.status).toBe(401);
    expect(res.json.success).toBe(false);
  });

  it("shows an empty User-Agent as an unknown device", async () => {
    const u = await fresh("noua");
    const bare = await signIn(u, "", "192.0.2.9");
    const sessions: OwnSession[] = (await list(u)).json.data;
    expect(sessions.find((s) => s.id === bare.jti)?.device).toBe(UNKNOWN_DEVICE);
  });
});

describe("DELETE /api/user/self/sessions/{id}", () => {
  it("ends another session of the caller: its cookie is refused, the caller's goes on", async () => {
    const u = await fresh("one");
    const other = await signIn(u, MAC_CHROME, "203.0.113.8");
    const res = await end(u, other.jti);
    expect(res.json).toEqual({ success: true, message: "", data: { current: false } });
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(await selfStatus(other)).toBe(401);
    expect(await selfStatus(u)).toBe(200);
    expect(((await list(u)).json.data as OwnSession[]).map((s) => s.id)).toEqual([await jtiOf(u.cookie)]);
  });

  it("ending the caller's own session signs it out and clears its cookie", async () => {
    const u = await fresh("own");
    const kept = await signIn(u, MAC_CHROME, "203.0.113.9");
    const res = await end(u, await jtiOf(u.cookie));
    expect(res.json).toEqual({ success: true, message: "", data: { current: true } });
    expect(res.headers.get("set-cookie")).toMatch(/^qiao_session=;.*Max-Age=0/);
    expect(await selfStatus(u)).toBe(401);
    expect(await selfStatus(kept)).toBe(200);
  });

  it("cannot end another account's session: not found, and that session goes on", async () => {
    const u = await fresh("thief");
    const victim = await fresh("victim");
    const target = await signIn(victim, IPHONE_SAFARI, "198.51.100.30");
    const res = await end(u, target.jti);
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ success: false, message: OWN_SESSION_MSG.notFound });
    expect(await selfStatus(target)).toBe(200);
    expect((await listSessions(victim.id)).map((s) => s.id)).toContain(target.jti);
  });

  it("answers not found for a session already ended or never issued", async () => {
    const u = await fresh("gone");
    const other = await signIn(u, MAC_CHROME, "203.0.113.10");
    expect((await end(u, other.jti)).status).toBe(200);
    expect((await end(u, other.jti)).json).toEqual({ success: false, message: OWN_SESSION_MSG.notFound });
    expect((await end(u, "no-such-session")).status).toBe(404);
  });
});

describe("POST /api/user/self/sessions/revoke_others", () => {
  it("ends every session of the caller but its own and says how many", async () => {
    const u = await fresh("others");
    const a = await signIn(u, MAC_CHROME, "203.0.113.11");
    const b = await signIn(u, IPHONE_SAFARI, "198.51.100.31", "wechat");
    const neighbour = await fresh("neighbour");
    const res = await endOthers(u);
    expect(res.json).toEqual({ success: true, message: "", data: { count: 2 } });
    for (const gone of [a, b]) expect(await selfStatus(gone)).toBe(401);
    expect(await selfStatus(u)).toBe(200);
    expect(await selfStatus(neighbour)).toBe(200);
    const left: OwnSession[] = (await list(u)).json.data;
    expect(left).toHaveLength(1);
    expect(left[0]).toMatchObject({ id: await jtiOf(u.cookie), current: true });
    expect((await endOthers(u)).json.data).toEqual({ count: 0 });
  });

  it("with a system access token, which has no session of its own, ends them all", async () => {
    const u = await fresh("tokenholder");
    const viaToken = { headers: { authorization: `Bearer ${await createAccessToken(u.id)}` } };
    const listed = await call(sessionsRoute.GET, "GET", "/api/user/self/sessions", viaToken);
    expect((listed.json.data as OwnSession[]).every((s) => !s.current)).toBe(true);
    const res = await call(revokeOthers.POST, "POST", "/api/user/self/sessions/revoke_others", viaToken);
    expect(res.json.data).toEqual({ count: 1 });
    expect(await selfStatus(u)).toBe(401);
  });
});

describe("an ended session's cookie is refused everywhere", () => {
  let upstream: OpenAIMock;
  const relays = new Map<string, RelayServer>();

  beforeAll(async () => {
    upstream = await startOpenAIMock();
    for (const entry of ENTRIES) relays.set(entry, await startRelay(entry));
    await clearRelayData();
    await seedChannel({ base_url: upstream.url, models: "gpt-4o-mini" });
  });
  afterAll(async () => {
    for (const relay of relays.values()) await relay.close();
    await upstream.close();
  });

  async function playground(base: string, user: { id: number; cookie: string }) {
    const res = await fetch(`${base}/pg/chat/completions`, {
      method: "POST",
      headers: { cookie: user.cookie, "new-api-user": String(user.id), "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    });
    await res.text();
    return res.status;
  }

  it("by /api, the console's page guard and the playground on both relay entries", async () => {
    const u = await fresh("everywhere");
    const revoked = await signIn(u, MAC_CHROME, "203.0.113.12");
    expect(await selfStatus(revoked)).toBe(200);
    expect(await pageGuard(revoked.cookie)).toBe("next");
    for (const relay of relays.values()) expect(await playground(relay.url, revoked)).toBe(200);

    expect((await end(u, revoked.jti)).json.success).toBe(true);
    const calls = upstream.requests.length;
    expect(await selfStatus(revoked)).toBe(401);
    expect(await pageGuard(revoked.cookie)).toBe("http://localhost/login?expired=true");
    for (const relay of relays.values()) expect(await playground(relay.url, revoked)).toBe(401);
    expect(upstream.requests.length).toBe(calls);
    // The one that ended it is untouched.
    expect(await pageGuard(u.cookie)).toBe("next");
    expect(await playground(relays.get("node")!.url, u)).toBe(200);
  });
});

describe("what else ends sessions", () => {
  it("a password change ends the other sessions and keeps the caller's, under the same id", async () => {
    const u = await fresh("pwchange");
    const other = await signIn(u, IPHONE_SAFARI, "198.51.100.40");
    const changed = await call(self.PUT, "PUT", "/api/user/self", {
      as: u,
      body: { password: "newpassword1", original_password: "password123" },
    });
    expect(changed.json.success).toBe(true);
    const renewed = { id: u.id, cookie: cookieFrom(changed.headers.get("set-cookie")) };
    expect(await selfStatus(other)).toBe(401);
    expect(await selfStatus(u)).toBe(401);
    expect(await selfStatus(renewed)).toBe(200);
    const left: OwnSession[] = (await list(renewed)).json.data;
    expect(left.map((s) => ({ id: s.id, current: s.current }))).toEqual([{ id: await jtiOf(u.cookie), current: true }]);
  });

  it("an admin's ban ends every session of the user", async () => {
    const admin = await createUser({ username: `banner${++seq}`, role: 10 });
    const u = await fresh("banned");
    const other = await signIn(u, MAC_CHROME, "203.0.113.13");
    const res = await call(manage.POST, "POST", "/api/user/manage", { as: admin, body: { id: u.id, action: "disable" } });
    expect(res.json.success).toBe(true);
    expect(await listSessions(u.id)).toEqual([]);
    for (const s of [u, other]) expect(await selfStatus(s)).toBe(401);
    expect(await pageGuard(other.cookie)).toBe("http://localhost/login?expired=true");
  });

  it("an admin's password reset ends every session of the user", async () => {
    const admin = await createUser({ username: `resetter${++seq}`, role: 10 });
    const u = await fresh("reset");
    const other = await signIn(u, IPHONE_SAFARI, "198.51.100.41");
    const res = await call(users.PUT, "PUT", "/api/user/", { as: admin, body: { id: u.id, password: "brandnewpass1" } });
    expect(res.json.success).toBe(true);
    expect(await listSessions(u.id)).toEqual([]);
    for (const s of [u, other]) expect(await selfStatus(s)).toBe(401);
  });
});
