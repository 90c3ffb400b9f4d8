// One session check for the console pages, /api and the relay's playground: a session ended by a
// password change or a logout is refused everywhere, on every relay entry and in other processes;
// a user who deletes their account stops their keys at once.
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as logout from "@/app/api/user/logout/route";
import * as manage from "@/app/api/user/manage/route";
import * as self from "@/app/api/user/self/route";
import { authOptions } from "@/lib/users/next-auth";
import { SESSION_MSG } from "@/lib/auth/session-check";
import { getDb } from "@/lib/db";
import { findTokenByKey } from "@/lib/tokens/relay";
import { proxy } from "@/proxy";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { call, cookieFrom, createUser } from "@/tests/helpers/api";
import { startRelayProcess } from "@/tests/helpers/process";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

let mock: OpenAIMock;
const relays = new Map<string, RelayServer>();
let seq = 0;

beforeAll(async () => {
  mock = await startOpenAIMock();
  for (const entry of ENTRIES) relays.set(entry, await startRelay(entry));
  await clearRelayData();
  await seedChannel({ base_url: mock.url, models: "gpt-4o-mini" });
});
afterAll(async () => {
  for (const relay of relays.values()) await relay.close();
  await mock.close();
});

const QUOTA = 5_000_000;

async function playground(base: string, user: { id: number; cookie: string }) {
  const res = await fetch(`${base}/pg/chat/completions`, {
    method: "POST",
    headers: { cookie: user.cookie, "new-api-user": String(user.id), "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
  });
  return { status: res.status, body: await res.text() };
}

async function moneyOf(id: number) {
  const db = await getDb();
  const user = await db.user.findUniqueOrThrow({ where: { id }, select: { quota: true } });
  return { quota: user.quota, holds: await db.quotaHold.count({ where: { user_id: id } }) };
}

/** What the console's page guard does with this cookie on a page that needs a session. */
async function pageGuard(cookie: string) {
  const res = await proxy(new NextRequest("http://localhost/token", { headers: { cookie } }));
  return res.headers.get("location") ?? "next";
}

describe("a password change ends the other sessions", () => {
  for (const entry of ENTRIES) {
    it(`the old cookie is refused on /pg/chat/completions (${entry} entry) and moves no quota`, async () => {
      const u = await createUser({ username: `pw${entry}${++seq}`, password: "password123", quota: QUOTA });
      const relay = relays.get(entry)!;
      // The session works, and the relay has the user in its caches.
      expect((await playground(relay.url, u)).status).toBe(200);
      await settleAll();
      const changed = await call(self.PUT, "PUT", "/api/user/self", {
        as: u,
        body: { password: "newpassword1", original_password: "password123" },
      });
      expect(changed.json.success).toBe(true);
      const before = await moneyOf(u.id);
      const upstreamCalls = mock.requests.length;

      const stale = await playground(relay.url, u);
      expect(stale.status).toBe(401);
      expect(JSON.parse(stale.body).error.message).toContain("未登录或登录已过期，请重新登录！");
      await settleAll();
      expect(await moneyOf(u.id)).toEqual(before);
      expect(mock.requests.length).toBe(upstreamCalls);

      // The caller's fresh cookie goes on working.
      const fresh = { id: u.id, cookie: cookieFrom(changed.headers.get("set-cookie")) };
      expect((await playground(relay.url, fresh)).status).toBe(200);
    });
  }
});

describe("logout ends the session on the server", () => {
  it("a replayed cookie is refused by /api, the page guard, both playground entries and another process", async () => {
    const u = await createUser({ username: `out${++seq}`, password: "password123", quota: QUOTA });
    const other = await startRelayProcess({});
    try {
      expect((await call(self.GET, "GET", "/api/user/self", { as: u })).status).toBe(200);
      expect(await pageGuard(u.cookie)).toBe("next");
      for (const relay of relays.values()) expect((await playground(relay.url, u)).status).toBe(200);
      expect((await playground(other.url, u)).status).toBe(200);
      await settleAll();

      const out = await call(logout.GET, "GET", "/api/user/logout", { as: u });
      expect(out.json.success).toBe(true);
      expect(out.headers.get("set-cookie")).toMatch(/^qiao_session=;.*Max-Age=0/);
      const before = await moneyOf(u.id);
      const upstreamCalls = mock.requests.length;

      const replay = await call(self.GET, "GET", "/api/user/self", { as: u });
      expect(replay.status).toBe(401);
      expect(await pageGuard(u.cookie)).toBe("http://localhost/login?expired=true");
      for (const relay of relays.values()) expect((await playground(relay.url, u)).status).toBe(401);
      expect((await playground(other.url, u)).status).toBe(401);
      await settleAll();
      expect(await moneyOf(u.id)).toEqual(before);
      expect(mock.requests.length).toBe(upstreamCalls);
    } finally {
      await other.stop();
    }
  });

  it("ends only that session: the user's other sessions go on", async () => {
    const u = await createUser({ username: `two${++seq}`, password: "password123" });
    const { sessionCookieFor } = await import("@/tests/helpers/api");
    const second = { id: u.id, cookie: await sessionCookieFor(u.id) };
    await call(logout.GET, "GET", "/api/user/logout", { as: u });
    expect((await call(self.GET, "GET", "/api/user/self", { as: u })).status).toBe(401);
    expect((await call(self.GET, "GET", "/api/user/self", { as: second })).status).toBe(200);
  });
});

describe("logout needs New-Api-User, as every console call (issue 20.12)", () => {
  it("a cross-site GET (an <img>: the cookie without the header) ends nothing and keeps the cookie", async () => {
    const u = await createUser({ username: `img${++seq}`, password: "password123" });
    const forged = await call(logout.GET, "GET", "/api/user/logout", { cookie: u.cookie });
    expect(forged.status).toBe(401);
    expect(forged.json).toEqual({ success: false, message: SESSION_MSG.headerMissing });
    expect(forged.headers.get("set-cookie")).toBeNull();
    const otherUser = await call(logout.GET, "GET", "/api/user/logout", { cookie: u.cookie, userHeader: String(u.id + 1) });
    expect(otherUser.json).toEqual({ success: false, message: SESSION_MSG.headerMismatch });
    expect((await call(self.GET, "GET", "/api/user/self", { as: u })).status).toBe(200);
  });

  it("POST with the header ends the session, as the console's 退出 sends it", async () => {
    const u = await createUser({ username: `post${++seq}`, password: "password123" });
    const out = await call(logout.POST, "POST", "/api/user/logout", { as: u });
    expect(out.json.success).toBe(true);
    expect(out.headers.get("set-cookie")).toMatch(/^qiao_session=;.*Max-Age=0/);
    expect((await call(self.GET, "GET", "/api/user/self", { as: u })).status).toBe(401);
  });
});

describe("next-auth's sign-out", () => {
  it("ends the session on the server as /api/user/logout does", async () => {
    const u = await createUser({ username: `na${++seq}`, password: "password123" });
    const options = authOptions();
    const token = await options.jwt!.decode!({ token: u.cookie.replace(/^qiao_session=/, ""), secret: "" });
    expect(token?.sub).toBe(String(u.id));
    expect((await call(self.GET, "GET", "/api/user/self", { as: u })).status).toBe(200);
    await options.events!.signOut!({ token: token!, session: undefined as never });
    expect((await call(self.GET, "GET", "/api/user/self", { as: u })).status).toBe(401);
  });
});

/** A 'hi' chat through a relay entry with an API key. */
const chatWithKey = (relay: RelayServer, key: string) =>
  fetch(`${relay.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
  });

describe("deleting an account", () => {
  it("stops the user's keys at once, in this process's relay caches and in the database", async () => {
    const u = await seedUser();
    const chat = () => chatWithKey(relays.get("node")!, u.key);
    // The key and its user are now in the relay's memory.
    expect((await chat()).status).toBe(200);
    await settleAll();
    const { sessionCookieFor } = await import("@/tests/helpers/api");
    const deleted = await call(self.DELETE, "DELETE", "/api/user/self", { as: { id: u.id, cookie: await sessionCookieFor(u.id) } });
    expect(deleted.json.success).toBe(true);

    const upstreamCalls = mock.requests.length;
    const refused = await chat();
    expect(refused.status).toBe(401);
    expect(mock.requests.length).toBe(upstreamCalls);
    expect(await findTokenByKey(u.key.replace(/^sk-/, ""))).toBeNull();
    const row = await (await getDb()).token.findUniqueOrThrow({ where: { id: u.tokenId } });
    expect(row.deleted_at).not.toBeNull();
  });

  it("an admin's delete of a user stops its keys the same way", async () => {
    const u = await seedUser();
    const chat = () => chatWithKey(relays.get("web")!, u.key);
    expect((await chat()).status).toBe(200);
    await settleAll();
    const admin = await createUser({ username: `deladmin${u.id}`, role: 10 });
    const res = await call(manage.POST, "POST", "/api/user/manage", { as: admin, body: { id: u.id, action: "delete" } });
    expect(res.json.success).toBe(true);

    const upstreamCalls = mock.requests.length;
    expect((await chat()).status).toBe(401);
    expect(mock.requests.length).toBe(upstreamCalls);
    const row = await (await getDb()).token.findUniqueOrThrow({ where: { id: u.tokenId } });
    expect(row.deleted_at).not.toBeNull();
  });
});
