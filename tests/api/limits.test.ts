// Numbers and bodies /api cannot take: a page past any row, an expiry or timestamp no Int column
// holds, a body that is not JSON or is over API_MAX_BODY_BYTES. Each gets a 400-class envelope
// with a clear message and changes nothing (it used to be a 500, or accepted).
import { beforeAll, describe, expect, it } from "vitest";
import * as channels from "@/app/api/channel/route";
import * as channelSearch from "@/app/api/channel/search/route";
import * as logs from "@/app/api/log/route";
import * as selfLogs from "@/app/api/log/self/route";
import * as selfStat from "@/app/api/log/self/stat/route";
import * as stat from "@/app/api/log/stat/route";
import * as login from "@/app/api/user/login/route";
import * as tokens from "@/app/api/token/route";
import * as tokenSearch from "@/app/api/token/search/route";
import * as users from "@/app/api/user/route";
import * as userSearch from "@/app/api/user/search/route";
import { getDb } from "@/lib/db";
import { INT_COLUMN_MAX, nowSeconds } from "@/lib/db/num";
import { env } from "@/lib/env";
import { CLIENT_IP_HEADER } from "@/lib/net/client-ip";
import { call, createUser } from "@/tests/helpers/api";

type Caller = { id: number; cookie: string };
let root: Caller;

beforeAll(async () => {
  await getDb();
  root = await createUser({ username: "limitsroot", role: 100 });
});

const PAGED = [
  ["/api/token/", tokens.GET],
  ["/api/token/search", tokenSearch.GET],
  ["/api/user/", users.GET],
  ["/api/user/search", userSearch.GET],
  ["/api/channel/", channels.GET],
  ["/api/channel/search", channelSearch.GET],
  ["/api/log/", logs.GET],
  ["/api/log/self/", selfLogs.GET],
] as const;

describe("paging", () => {
  it("refuses a page past any possible row with 400 on every paged list", async () => {
    for (const [path, handler] of PAGED) {
      for (const query of ["p=99999999999999999999", "p=1e300", "p=300000000&page_size=10", "p=21474837&page_size=100"]) {
        const res = await call(handler, "GET", `${path}?${query}`, { as: root });
        expect(res.status, `${path}?${query}`).toBe(400);
        expect(res.json, `${path}?${query}`).toEqual({ success: false, message: "页码超出范围" });
      }
    }
  });

  it("answers an empty page for a page that could exist but does not", async () => {
    for (const [path, handler] of PAGED) {
      const p = Math.floor(INT_COLUMN_MAX / 10);
      const res = await call(handler, "GET", `${path}?p=${p}&page_size=10`, { as: root });
      expect(res.status, path).toBe(200);
      expect(res.json.data, path).toMatchObject({ items: [], page: p, page_size: 10 });
    }
  });
});

describe("log filters", () => {
  it("refuse a timestamp or channel no Int column holds, naming the parameter", async () => {
    const cases = [
      ["end_timestamp=99999999999999999999", "end_timestamp"],
      ["start_timestamp=99999999999", "start_timestamp"],
      ["channel=4294967296", "channel"],
    ] as const;
    for (const handler of [logs.GET, selfLogs.GET, stat.GET, selfStat.GET]) {
      for (const [query, name] of cases) {
        const res = await call(handler, "GET", `/api/log/?${query}`, { as: root });
        expect(res.status, query).toBe(400);
        expect(res.json.message, query).toBe(`参数错误：${name}: 超出范围`);
      }
    }
  });

  it("refuse a cleanup cut-off past any stored time, deleting nothing", async () => {
    const db = await getDb();
    await db.log.create({ data: { user_id: root.id, username: "limitsroot", created_at: nowSeconds(), type: 4, content: "keep me" } });
    const before = await db.log.count();
    const res = await call(logs.DELETE, "DELETE", "/api/log/?target_timestamp=99999999999", { as: root });
    expect(res.status).toBe(400);
    expect(res.json.message).toContain("清理日志的截止时间超出范围");
    expect(await db.log.count()).toBe(before);
  });
});

describe("token expiry", () => {
  const TOO_LATE = "过期时间超出范围，最晚为 2038-01-19，长期有效请选择永不过期";

  it("refuses an expiry past 2038-01-19 (the Int column) on create and on update, writing nothing", async () => {
    const db = await getDb();
    const before = await db.token.count();
    for (const expired_time of [INT_COLUMN_MAX + 1, 2 ** 32, 99_999_999_999]) {
      const res = await call(tokens.POST, "POST", "/api/token/", { as: root, body: { name: "late", expired_time } });
      expect(res.status, String(expired_time)).toBe(400);
      expect(res.json).toEqual({ success: false, message: `参数错误：expired_time: ${TOO_LATE}` });
    }
    expect(await db.token.count()).toBe(before);

    const made = await call(tokens.POST, "POST", "/api/token/", { as: root, body: { name: "latest", expired_time: INT_COLUMN_MAX } });
    expect(made.status).toBe(200);
    expect(made.json.data.expired_time).toBe(INT_COLUMN_MAX);
    const edit = await call(tokens.PUT, "PUT", "/api/token/", {
      as: root,
      body: { id: made.json.data.id, name: "later", expired_time: 2 ** 32 },
    });
    expect(edit.status).toBe(400);
    expect(edit.json.message).toContain(TOO_LATE);
    expect(await db.token.findUniqueOrThrow({ where: { id: made.json.data.id } })).toMatchObject({
      name: "latest",
      expired_time: INT_COLUMN_MAX,
    });
  });
});

/** A login request whose body streams `total` bytes of JSON, declaring `declared` as its length. */
function streamedLogin(total: number, declared?: number, contentType = "application/json") {
  const head = new TextEncoder().encode('{"username":"limitsroot","password":"password123","pad":"');
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === 0) {
        sent = head.length;
        return controller.enqueue(head);
      }
      if (sent >= total) {
        controller.enqueue(new TextEncoder().encode('"}'));
        return controller.close();
      }
      const chunk = new Uint8Array(64 * 1024).fill(0x78);
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
  const headers = new Headers({ "content-type": contentType, [CLIENT_IP_HEADER]: "127.0.0.1" });
  if (declared !== undefined) headers.set("content-length", String(declared));
  return new Request("http://localhost/api/user/login", { method: "POST", headers, body, duplex: "half" } as RequestInit);
}

describe("request bodies", () => {
  const tooLarge = { success: false, message: "请求体过大（不能超过 1 MB）" };

  it("caps the body as it is read: without a length, or with one that understates", async () => {
    expect(env.API_MAX_BODY_BYTES).toBe(1024 * 1024);
    for (const declared of [undefined, 100]) {
      const res = await login.POST(streamedLogin(2 * env.API_MAX_BODY_BYTES, declared));
      expect(res.status, String(declared)).toBe(413);
      expect(await res.json()).toEqual(tooLarge);
      expect(res.headers.get("set-cookie")).toBeNull();
    }
    // Under the cap the same request signs in.
    const ok = await login.POST(streamedLogin(64 * 1024));
    expect(ok.status).toBe(200);
  });

  it("reads JSON only from an application/json body", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonp"]) {
      const res = await login.POST(streamedLogin(10, undefined, type));
      expect(res.status, type).toBe(415);
      expect(await res.json()).toEqual({ success: false, message: "请求体必须是 JSON（Content-Type: application/json）" });
    }
    const charset = await login.POST(streamedLogin(10, undefined, "Application/JSON; charset=utf-8"));
    expect(charset.status).toBe(200);
  });
});
