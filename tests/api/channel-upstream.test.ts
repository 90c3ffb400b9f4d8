// Calls the console makes to a channel's upstream: fetching its model list (a stored channel, or
// the editor's unsaved form) and reading its balance from the vendor, one channel or all enabled
// channels in the background, against mock vendors speaking the vendors' wire formats.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { seal } from "@/lib/crypto/secret-box";
import { updateOption } from "@/lib/options";
import { channelJobDone } from "@/lib/channels/jobs";
import * as channels from "@/app/api/channel/route";
import { relayRefusal } from "@/lib/relay/providers";
import * as fetchOne from "@/app/api/channel/fetch_models/[id]/route";
import * as fetchForm from "@/app/api/channel/fetch_models/route";
import * as balanceOne from "@/app/api/channel/update_balance/[id]/route";
import * as balanceAll from "@/app/api/channel/update_balance/route";
import * as jobs from "@/app/api/channel/jobs/route";
import { call, createUser, sessionCookieFor } from "@/tests/helpers/api";
import { clearRelayData } from "@/tests/helpers/relay";
import { startVendorAccountsMock, type VendorAccountsMock } from "@/tests/mocks/vendor-accounts";

type Caller = { id: number; cookie: string };
const KEY = "sk-account-key-0123456789abcdef";
let vendor: VendorAccountsMock;
let admin: Caller;
let root: Caller;

beforeAll(async () => {
  vendor = await startVendorAccountsMock({ apiKey: KEY });
  admin = await createUser({ username: "upstream-admin", role: 10 });
  const db = await getDb();
  const row = await db.user.findUniqueOrThrow({ where: { username: "root" } });
  root = { id: row.id, cookie: await sessionCookieFor(row.id) };
});
afterAll(async () => {
  await vendor.close();
  await updateOption("ChannelPrivateAddressAllowed", "true");
  await updateOption("AutomaticDisableChannelEnabled", "false");
  await updateOption("Price", "7.3");
});
beforeEach(async () => {
  vendor.reset();
  await clearRelayData();
  await updateOption("ChannelPrivateAddressAllowed", "true");
  await updateOption("AutomaticDisableChannelEnabled", "false");
  await updateOption("Price", "7.3");
});

/** A stored channel; one of a type the API refuses (not relayed) is saved as OpenAI, then retyped. */
async function channel(body: Record<string, unknown>, as: Caller = root): Promise<number> {
  const type = Number(body.type ?? 1);
  const refused = relayRefusal(type) !== null;
  const res = await call(channels.POST, "POST", "/api/channel/", {
    as,
    body: { type: 1, name: "acct", key: KEY, models: "gpt-4o", base_url: vendor.url, ...body, ...(refused ? { type: 1 } : {}) },
  });
  expect(res.json.success, res.json.message).toBe(true);
  const id: number = res.json.data[0].id;
  if (refused) await (await getDb()).channel.update({ where: { id }, data: { type } });
  return id;
}

const row = async (id: number) => (await getDb()).channel.findUniqueOrThrow({ where: { id } });
const fetchModels = (id: number | string, as: Caller = admin) =>
  call(fetchOne.GET, "GET", `/api/channel/fetch_models/${id}`, { as, params: { id: String(id) } });
const fetchFormModels = (body: Record<string, unknown>, as: Caller = admin) =>
  call(fetchForm.POST, "POST", "/api/channel/fetch_models", { as, body });
const updateBalance = (id: number | string, as: Caller = admin) =>
  call(balanceOne.GET, "GET", `/api/channel/update_balance/${id}/`, { as, params: { id: String(id) } });

describe("GET /api/channel/fetch_models/{id}", () => {
  it("lists the ids of the upstream's GET /v1/models, sent with the channel's key", async () => {
    const id = await channel({});
    const res = await fetchModels(id);
    expect(res.json).toEqual({ success: true, message: "", data: ["gpt-4o", "gpt-4o-mini", "text-embedding-3-small"] });
    expect(vendor.requests).toMatchObject([{ method: "GET", path: "/v1/models", authorization: `Bearer ${KEY}` }]);
  });

  it("uses the type's default address path and drops duplicate or blank ids", async () => {
    const id = await channel({ type: 43, base_url: `${vendor.url}/` });
    vendor.setAccount({ models: ["deepseek-chat", " ", "deepseek-chat", "deepseek-reasoner"] });
    expect((await fetchModels(id)).json.data).toEqual(["deepseek-chat", "deepseek-reasoner"]);
  });

  it("answers that only the OpenAI format is supported for other types, and asks nothing upstream", async () => {
    for (const type of [3, 14, 24, 8]) {
      const id = await channel({ type, other: type === 3 ? "2024-02-01" : "" });
      const res = await fetchModels(id);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ success: false, message: "仅支持 OpenAI 接口格式的渠道获取模型列表" });
    }
    expect(vendor.requests).toHaveLength(0);
  });

  it("needs a key", async () => {
    const id = await channel({});
    await (await getDb()).channel.update({ where: { id }, data: { key: seal("  ") } });
    const res = await fetchModels(id);
    expect(res.json).toEqual({ success: false, message: "请先填写渠道密钥，获取模型列表需要密钥" });
    expect(vendor.requests).toHaveLength(0);
  });

  it("says 获取模型列表失败 with the upstream's reason, never with the key", async () => {
    const id = await channel({});
    vendor.setAccount({ failStatus: 500 });
    const failed = await fetchModels(id);
    expect(failed.status).toBe(502);
    expect(failed.json).toEqual({
      success: false,
      message: "获取模型列表失败：HTTP 500：The server had an error while processing your request.",
    });

    vendor.setAccount({ failStatus: undefined, rawBody: '{"object":"list","data":"nope"}' });
    expect((await fetchModels(id)).json.message).toBe("获取模型列表失败：上游返回的不是 OpenAI 格式的模型列表");
    vendor.setAccount({ rawBody: "<html>proxy</html>" });
    expect((await fetchModels(id)).json.message).toBe("获取模型列表失败：上游返回的不是 JSON（HTTP 200）");
    vendor.setAccount({ rawBody: `{"object":"list","data":[],"pad":"${"x".repeat(9 * 1024 * 1024)}"}` });
    expect((await fetchModels(id)).json.message).toBe("获取模型列表失败：上游响应过大");

    // The vendor echoes the key it was given: the admin reads the message without it.
    const other = "sk-other-stored-key-987654321";
    const wrong = await channel({ key: other });
    const echoed = await fetchModels(wrong);
    expect(echoed.json.message).toMatch(/^获取模型列表失败：HTTP 401：Incorrect API key provided: \*\*\*\./);
    expect(echoed.text).not.toContain(other);
  });

  it("reports an unreachable upstream and a missing channel", async () => {
    const closed = await startVendorAccountsMock();
    const url = closed.url;
    await closed.close();
    const id = await channel({ base_url: url });
    expect((await fetchModels(id)).json.message).toBe("获取模型列表失败：请求上游地址失败: connection refused (ECONNREFUSED)");
    const missing = await fetchModels(999999);
    expect(missing.status).toBe(404);
    expect(missing.json.message).toBe("渠道不存在");
    expect((await fetchModels("abc")).status).toBe(404);
  });

  it("keeps the address rules: an admin's loopback channel is refused while ChannelPrivateAddressAllowed is off", async () => {
    const admins = await channel({}, admin);
    const roots = await channel({});
    await updateOption("ChannelPrivateAddressAllowed", "false");
    const refused = await fetchModels(admins);
    expect(refused.json.success).toBe(false);
    expect(refused.json.message).toContain("获取模型列表失败：127.0.0.1 是本机、内网或链路本地地址");
    expect(vendor.requests).toHaveLength(0);
    expect((await fetchModels(roots)).json.success).toBe(true);
    expect(vendor.requests).toHaveLength(1);
  });
});

describe("POST /api/channel/fetch_models (the editor's unsaved form)", () => {
  it("lists the models for the typed type, base_url and key", async () => {
    const res = await fetchFormModels({ type: 1, base_url: `${vendor.url}///`, key: KEY });
    expect(res.json).toEqual({ success: true, message: "", data: ["gpt-4o", "gpt-4o-mini", "text-embedding-3-small"] });
    expect(vendor.requests[0]).toMatchObject({ path: "/v1/models", authorization: `Bearer ${KEY}` });
  });

  it("refuses a missing key, another format and an unknown type, asking nothing upstream", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: 1, base_url: vendor.url, key: "" }, "请先填写渠道密钥，获取模型列表需要密钥"],
      [{ type: 1, base_url: vendor.url }, "请先填写渠道密钥，获取模型列表需要密钥"],
      [{ type: 14, base_url: vendor.url, key: KEY }, "仅支持 OpenAI 接口格式的渠道获取模型列表"],
      [{ type: 9999, base_url: vendor.url, key: KEY }, "未知的渠道类型"],
      [{ base_url: vendor.url, key: KEY }, "未知的渠道类型"],
    ];
    for (const [body, message] of cases) {
      const res = await fetchFormModels(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.message).toContain(message);
    }
    expect(vendor.requests).toHaveLength(0);
  });

  it("checks the address as a save by the same caller would", async () => {
    await updateOption("ChannelPrivateAddressAllowed", "false");
    const refused = await fetchFormModels({ type: 1, base_url: vendor.url, key: KEY });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe("不能将渠道指向本机、内网或链路本地地址 127.0.0.1！");
    expect(vendor.requests).toHaveLength(0);
    expect((await fetchFormModels({ type: 1, base_url: vendor.url, key: KEY }, root)).json.success).toBe(true);
  });

  it("says 获取模型列表失败 with the reason, without the typed key", async () => {
    const typed = "sk-typed-in-the-form-55555555";
    const res = await fetchFormModels({ type: 1, base_url: vendor.url, key: typed });
    expect(res.json.message).toMatch(/^获取模型列表失败：HTTP 401：Incorrect API key provided: \*\*\*\./);
  });
});

describe("GET /api/channel/update_balance/{id}", () => {
  it("OpenAI: hard limit minus this month's usage, stored with the time", async () => {
    const id = await channel({});
    const before = Math.floor(Date.now() / 1000);
    const res = await updateBalance(id);
    expect(res.json).toEqual({ success: true, message: "", data: 99.5 });
    const stored = await row(id);
    expect(stored.balance).toBe(99.5);
    expect(stored.balance_updated_time).toBeGreaterThanOrEqual(before);
    const today = new Date().toISOString().slice(0, 10);
    expect(vendor.requests.map((r) => r.path)).toEqual(["/v1/dashboard/billing/subscription", "/v1/dashboard/billing/usage"]);
    const usage = vendor.requests[1]!;
    expect(usage.authorization).toBe(`Bearer ${KEY}`);
    expect(usage.query.get("start_date")).toBe(`${today.slice(0, 8)}01`);
    expect(usage.query.get("end_date")).toBe(today);
  });

  it("OpenAI without a payment method: usage of the last 100 days", async () => {
    const id = await channel({});
    vendor.setAccount({ hasPaymentMethod: false, hardLimitUsd: 5, totalUsageCents: 125 });
    expect((await updateBalance(id)).json.data).toBe(3.75);
    const start = new Date(Date.now() - 100 * 86_400_000).toISOString().slice(0, 10);
    expect(vendor.requests[1]!.query.get("start_date")).toBe(start);
  });

  it("Moonshot, SiliconFlow and DeepSeek in yuan become US$ at the Price option", async () => {
    await updateOption("Price", "8");
    vendor.setAccount({ moonshotAvailable: 49.6, siliconflowTotal: "88.88" });
    const moonshot = await channel({ type: 25 });
    expect((await updateBalance(moonshot)).json.data).toBe(6.2);
    expect(vendor.requests.at(-1)).toMatchObject({ path: "/v1/users/me/balance", authorization: `Bearer ${KEY}` });
    const silicon = await channel({ type: 40 });
    expect((await updateBalance(silicon)).json.data).toBe(11.11);
    expect(vendor.requests.at(-1)!.path).toBe("/v1/user/info");
    const deepseek = await channel({ type: 43 });
    expect((await updateBalance(deepseek)).json.data).toBe(13.75);
    expect(vendor.requests.at(-1)!.path).toBe("/user/balance");
    expect((await row(deepseek)).balance).toBe(13.75);
  });

  it("DeepSeek: takes the US$ balance when the account has one", async () => {
    const id = await channel({ type: 43 });
    vendor.setAccount({
      deepseek: [
        { currency: "CNY", total_balance: "110.00" },
        { currency: "USD", total_balance: "3.50" },
      ],
    });
    expect((await updateBalance(id)).json.data).toBe(3.5);
    vendor.setAccount({ deepseek: [{ currency: "EUR", total_balance: "1.00" }] });
    expect((await updateBalance(id)).json.message).toBe("查询余额失败：上游返回的余额格式无法识别");
  });

  it("answers clearly for a type without a balance endpoint and changes nothing", async () => {
    for (const type of [3, 4, 8, 14, 42]) {
      const id = await channel({ type, other: type === 3 ? "2024-02-01" : "" });
      const before = await row(id);
      const res = await updateBalance(id);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ success: false, message: "该渠道类型不支持查询余额" });
      expect(await row(id)).toEqual(before);
    }
    expect(vendor.requests).toHaveLength(0);
  });

  it("keeps the stored balance when the vendor fails, and says why", async () => {
    const id = await channel({});
    await updateBalance(id);
    const before = await row(id);
    vendor.setAccount({ failStatus: 503 });
    const failed = await updateBalance(id);
    expect(failed.status).toBe(502);
    expect(failed.json.message).toBe("查询余额失败：HTTP 503：The server had an error while processing your request.");
    vendor.setAccount({ failStatus: undefined, rawBody: "{}" });
    expect((await updateBalance(id)).json.message).toBe("查询余额失败：上游返回的余额格式无法识别");
    vendor.setAccount({ rawBody: '{"code":1,"data":{"available_balance":0},"scode":"0x1","status":false}' });
    const moonshot = await channel({ type: 25 });
    expect((await updateBalance(moonshot)).json.message).toBe("查询余额失败：code 1");
    vendor.setAccount({ rawBody: undefined, siliconflowCode: 50603 });
    const silicon = await channel({ type: 40 });
    expect((await updateBalance(silicon)).json.message).toBe("查询余额失败：code 50603，Invalid token");
    expect(await row(id)).toEqual(before);
    expect((await row(silicon)).balance_updated_time).toBe(0);
  });

  it("refuses to convert yuan when Price is 0", async () => {
    await updateOption("Price", "0");
    const id = await channel({ type: 40 });
    const res = await updateBalance(id);
    expect(res.json).toEqual({ success: false, message: "Price（每美元人民币价格）为 0，无法把人民币余额换算为美元" });
    expect((await row(id)).balance_updated_time).toBe(0);
  });

  it("never shows the key a vendor echoes, and keeps the address rules", async () => {
    const other = "sk-balance-stored-key-24680246";
    const wrong = await channel({ key: other });
    const res = await updateBalance(wrong);
    expect(res.json.message).toMatch(/^查询余额失败：HTTP 401：Incorrect API key provided: \*\*\*\./);
    expect(res.text).not.toContain(other);

    const admins = await channel({}, admin);
    await updateOption("ChannelPrivateAddressAllowed", "false");
    vendor.reset();
    const refused = await updateBalance(admins);
    expect(refused.json.message).toContain("查询余额失败：127.0.0.1 是本机、内网或链路本地地址");
    expect(vendor.requests).toHaveLength(0);
    expect((await row(admins)).balance_updated_time).toBe(0);
  });

  it("answers 404 for a missing channel", async () => {
    const res = await updateBalance(424242);
    expect(res.status).toBe(404);
    expect(res.json.message).toBe("渠道不存在");
  });
});

describe("GET /api/channel/update_balance (all enabled channels, in the background)", () => {
  const jobsNow = async () => (await call(jobs.GET, "GET", "/api/channel/jobs", { as: admin })).json.data;

  it("returns at once with the run's record; the balances land and the record shows the end", async () => {
    const openai = await channel({ name: "openai" });
    const deepseek = await channel({ type: 43, name: "deepseek" });
    const broken = await channel({ name: "broken", key: "sk-wrong-key-for-this-vendor" });
    const disabled = await channel({ name: "disabled", status: 2 });
    const azure = await channel({ type: 3, name: "azure", other: "2024-02-01" });
    vendor.setAccount({ stallMs: 150 });

    const res = await call(balanceAll.GET, "GET", "/api/channel/update_balance", { as: admin });
    expect(res.json.success).toBe(true);
    expect(res.json.message).toBe("已开始更新所有已启用渠道的余额，请稍后刷新查看结果");
    expect(res.json.data).toMatchObject({ kind: "balance", running: true, total: 3, done: 0, finished_at: 0 });
    // Nothing was waited for: no balance has landed yet.
    expect((await row(openai)).balance_updated_time).toBe(0);
    expect(await jobsNow()).toMatchObject({ balance: { running: true, total: 3 } });

    const again = await call(balanceAll.GET, "GET", "/api/channel/update_balance", { as: admin });
    expect(again.json.message).toBe("余额更新已在进行中");
    expect(again.json.data.started_at).toBe(res.json.data.started_at);

    await channelJobDone("balance");
    const done = (await jobsNow()).balance;
    expect(done).toMatchObject({ running: false, total: 3, done: 3, succeeded: 2, failed: 1, disabled: 0 });
    expect(done.failures).toEqual([
      { channel_id: broken, message: expect.stringMatching(/^查询余额失败：HTTP 401：Incorrect API key provided: \*\*\*\./) },
    ]);
    expect(done.finished_at).toBeGreaterThanOrEqual(done.started_at);
    expect((await row(openai)).balance).toBe(99.5);
    expect((await row(deepseek)).balance).toBe(Math.round((110 / 7.3) * 1e6) / 1e6);
    expect((await row(broken)).balance_updated_time).toBe(0);
    expect((await row(disabled)).balance_updated_time).toBe(0);
    expect((await row(azure)).balance_updated_time).toBe(0);
  });

  it("disables a channel whose balance is used up when AutomaticDisableChannelEnabled, unless its auto_ban is off", async () => {
    vendor.setAccount({ hardLimitUsd: 10, totalUsageCents: 1000 });
    const banned = await channel({ name: "banned" });
    const kept = await channel({ name: "kept", auto_ban: 0 });
    await call(balanceAll.GET, "GET", "/api/channel/update_balance", { as: admin });
    await channelJobDone("balance");
    expect((await row(banned)).status).toBe(1);

    await updateOption("AutomaticDisableChannelEnabled", "true");
    await call(balanceAll.GET, "GET", "/api/channel/update_balance", { as: admin });
    await channelJobDone("balance");
    const disabled = await row(banned);
    expect(disabled.status).toBe(3);
    expect(JSON.parse(disabled.other_info)).toMatchObject({ status_reason: "余额不足", status_time: expect.any(Number) });
    expect(await (await getDb()).ability.count({ where: { channel_id: banned, enabled: true } })).toBe(0);
    expect((await row(kept)).status).toBe(1);
    expect((await jobsNow()).balance).toMatchObject({ total: 2, done: 2, disabled: 1 });
  });
});
