// Who may call the channel API, and what of a channel's key ever leaves it. Every handler under
// app/api/channel is found on disk and called: an ordinary user gets 403 and changes nothing, a
// visitor 401. Keys are write-only below root: no answer an admin (role 10) gets carries a stored
// key, not even when an upstream echoes it back; root reads it through the explicit reveal only.
import { readdirSync } from "node:fs";
import path from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { channelJobDone } from "@/lib/channels/jobs";
import { listLogs, logQuerySchema } from "@/lib/logs/query";
import * as channels from "@/app/api/channel/route";
import * as search from "@/app/api/channel/search/route";
import * as one from "@/app/api/channel/[id]/route";
import * as reveal from "@/app/api/channel/[id]/key/route";
import * as testOne from "@/app/api/channel/test/[id]/route";
import * as testAll from "@/app/api/channel/test/route";
import * as fetchOne from "@/app/api/channel/fetch_models/[id]/route";
import * as balanceOne from "@/app/api/channel/update_balance/[id]/route";
import * as balanceAll from "@/app/api/channel/update_balance/route";
import * as jobs from "@/app/api/channel/jobs/route";
import { call, createUser, sessionCookieFor } from "@/tests/helpers/api";
import { markVerified } from "@/tests/helpers/step-up";
import { clearRelayData, seedUser, settleAll, startRelay } from "@/tests/helpers/relay";
import { startVendorAccountsMock, type VendorAccountsMock } from "@/tests/mocks/vendor-accounts";

type Caller = { id: number; cookie: string };
type Handler = (req: Request, ctx?: { params?: Promise<Record<string, string>> }) => Promise<Response>;

const CHANNEL_API = path.resolve(import.meta.dirname, "../../app/api/channel");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Every route.ts under app/api/channel, as its URL with "1" for each dynamic segment. */
function channelRoutes(): Array<{ file: string; url: string }> {
  return (readdirSync(CHANNEL_API, { recursive: true }) as string[])
    .filter((f) => path.basename(f) === "route.ts")
    .map((f) => {
      const dir = path
        .dirname(f)
        .replace(/^\.$/, "")
        .replace(/\[[^\]]+\]/g, "1");
      return { file: path.join(CHANNEL_API, f), url: dir ? `/api/channel/${dir}/` : "/api/channel/" };
    });
}

let vendor: VendorAccountsMock;
let root: Caller;
let admin: Caller;
let user: Caller;

beforeAll(async () => {
  vendor = await startVendorAccountsMock({ apiKey: "sk-the-vendor-accepts-only-this" });
  const db = await getDb();
  const row = await db.user.findUniqueOrThrow({ where: { username: "root" } });
  root = { id: row.id, cookie: await sessionCookieFor(row.id) };
  admin = await createUser({ username: "access-admin", role: 10 });
  user = await createUser({ username: "access-user" });
  await clearRelayData();
});
afterAll(async () => {
  await vendor.close();
  await updateOption("AutomaticDisableChannelEnabled", "false");
});

describe("the channel API is for admins", () => {
  it("answers an ordinary user 403 and a visitor 401 on every handler, changing nothing", async () => {
    const routes = channelRoutes();
    const urls = routes.map((r) => r.url);
    for (const expected of [
      "/api/channel/fetch_models/1/",
      "/api/channel/fetch_models/",
      "/api/channel/update_balance/1/",
      "/api/channel/update_balance/",
      "/api/channel/jobs/",
      "/api/channel/test/1/",
      "/api/channel/1/key/",
    ]) {
      expect(urls).toContain(expected);
    }
    const db = await getDb();
    const id = (
      await call(channels.POST, "POST", "/api/channel/", {
        as: admin,
        body: { name: "guarded", key: "sk-guarded-key-11111111", models: "gpt-4o", base_url: vendor.url },
      })
    ).json.data[0].id;
    const before = await db.channel.findMany({ orderBy: { id: "asc" } });
    vendor.reset();
    let handlers = 0;
    for (const { file, url } of routes) {
      const mod = (await import(file)) as Record<string, Handler>;
      for (const method of METHODS) {
        const handler = mod[method];
        if (!handler) continue;
        handlers++;
        const body =
          method === "GET" || method === "DELETE"
            ? undefined
            : { id, ids: [id], name: "x", key: "sk-x", type: 1, models: "m", base_url: vendor.url };
        const params = { id: String(id) };
        const asUser = await call(handler, method, url.replace("/1/", `/${id}/`), { as: user, body, params });
        expect(asUser.status, `${method} ${url} as a user`).toBe(403);
        expect(asUser.json.success).toBe(false);
        const asVisitor = await call(handler, method, url, { body, params });
        expect(asVisitor.status, `${method} ${url} as a visitor`).toBe(401);
      }
    }
    expect(handlers).toBeGreaterThanOrEqual(17);
    expect(await db.channel.findMany({ orderBy: { id: "asc" } })).toEqual(before);
    expect(vendor.requests).toHaveLength(0);
  });

  it("keeps the key reveal for root", async () => {
    const id = (
      await call(channels.POST, "POST", "/api/channel/", {
        as: admin,
        body: { name: "reveal", key: "sk-reveal-only-root-2222", models: "gpt-4o" },
      })
    ).json.data[0].id;
    const byAdmin = await call(reveal.POST, "POST", `/api/channel/${id}/key`, { as: admin, params: { id: String(id) } });
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.text).not.toContain("sk-reveal-only-root-2222");
    await markVerified(root.cookie); // the reveal asks root to step up (tests/api/step-up.test.ts)
    const byRoot = await call(reveal.POST, "POST", `/api/channel/${id}/key`, { as: root, params: { id: String(id) } });
    expect(byRoot.json).toEqual({ success: true, message: "", data: { key: "sk-reveal-only-root-2222" } });
  });
});

describe("channel keys are write-only below root", () => {
  const KEY = "sk-write-only-channel-key-5f3a9c1e7b";

  it("never reach an admin in any channel answer, even when the upstream echoes them", async () => {
    await updateOption("AutomaticDisableChannelEnabled", "true");
    const created = await call(channels.POST, "POST", "/api/channel/", {
      as: admin,
      body: { name: "secret", key: KEY, models: "gpt-4o-mini", base_url: vendor.url, type: 1 },
    });
    const id: number = created.json.data[0].id;
    const params = { id: String(id) };
    const answers = [
      created,
      await call(channels.PUT, "PUT", "/api/channel/", { as: admin, body: { id, name: "secret-renamed" } }),
      await call(channels.GET, "GET", "/api/channel/?page_size=100", { as: admin }),
      await call(search.GET, "GET", `/api/channel/search?keyword=${KEY}`, { as: admin }),
      await call(search.GET, "GET", `/api/channel/search?keyword=${id}`, { as: admin }),
      await call(one.GET, "GET", `/api/channel/${id}`, { as: admin, params }),
      // The vendor refuses the key and echoes it: test, model list and balance answers.
      await call(fetchOne.GET, "GET", `/api/channel/fetch_models/${id}`, { as: admin, params }),
      await call(balanceOne.GET, "GET", `/api/channel/update_balance/${id}/`, { as: admin, params }),
      await call(testOne.GET, "GET", `/api/channel/test/${id}`, { as: admin, params }),
    ];
    expect(answers[3]!.json.data.items.map((c: { id: number }) => c.id)).toEqual([id]);
    expect(answers[8]!.json.message).toMatch(/^Incorrect API key provided: \*\*\*\./);
    // The failed test disabled the channel with the upstream's text as its reason.
    const disabled = await call(one.GET, "GET", `/api/channel/${id}`, { as: admin, params });
    expect(disabled.json.data.status).toBe(3);
    expect(JSON.parse(disabled.json.data.other_info).status_reason).toMatch(/^测试失败：Incorrect API key provided: \*\*\*\./);
    answers.push(disabled);
    await call(channels.PUT, "PUT", "/api/channel/", { as: admin, body: { id, status: 1 } });
    answers.push(await call(testAll.GET, "GET", "/api/channel/test", { as: admin }));
    await channelJobDone("test");
    answers.push(await call(balanceAll.GET, "GET", "/api/channel/update_balance", { as: admin }));
    await channelJobDone("balance");
    answers.push(await call(jobs.GET, "GET", "/api/channel/jobs", { as: admin }));
    expect(answers.at(-1)!.json.data.balance.failures).toHaveLength(1);
    for (const res of answers) {
      expect(res.text).not.toContain(KEY);
      for (const item of [res.json.data ?? {}].flat().concat(res.json.data?.items ?? [])) {
        if (item && typeof item === "object" && "key" in item) expect(item.key).toBe("");
      }
    }
    // Root's lists carry no key either: only the reveal does.
    for (const res of [
      await call(channels.GET, "GET", "/api/channel/?page_size=100", { as: root }),
      await call(one.GET, "GET", `/api/channel/${id}`, { as: root, params }),
    ]) {
      expect(res.text).not.toContain(KEY);
    }
  });

  it("never reach an admin through the relay's auto-disable reason or error log", async () => {
    await updateOption("AutomaticDisableChannelEnabled", "true");
    const id: number = (
      await call(channels.POST, "POST", "/api/channel/", {
        as: root,
        body: { name: "relayed", key: KEY, models: "gpt-4o-mini", base_url: vendor.url, type: 1 },
      })
    ).json.data[0].id;
    const relay = await startRelay("node");
    try {
      const caller = await seedUser();
      const client = new OpenAI({ apiKey: caller.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
      const error = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }).then(
        () => null,
        (e: InstanceType<typeof OpenAI.APIError>) => e,
      );
      expect(error?.status, error?.message).toBe(401);
      await settleAll();
      await expect.poll(async () => (await (await getDb()).channel.findUniqueOrThrow({ where: { id } })).status).toBe(3);
      const asAdmin = await call(one.GET, "GET", `/api/channel/${id}`, { as: admin, params: { id: String(id) } });
      expect(asAdmin.text).not.toContain(KEY);
      expect(JSON.parse(asAdmin.json.data.other_info).status_reason).toContain("Incorrect API key provided: ***.");
      const logs = (await listLogs({ ...logQuerySchema.parse({}), username: caller.username })).items;
      expect(logs).toHaveLength(1);
      expect(JSON.stringify(logs)).not.toContain(KEY);
    } finally {
      await relay.close();
    }
  });
});
