import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { open } from "@/lib/crypto/secret-box";
import { onInvalidation } from "@/lib/cache/bus";
import { call, createUser, sessionCookieFor } from "@/tests/helpers/api";
import { markVerified } from "@/tests/helpers/step-up";
import * as channels from "@/app/api/channel/route";
import * as search from "@/app/api/channel/search/route";
import * as one from "@/app/api/channel/[id]/route";
import * as reveal from "@/app/api/channel/[id]/key/route";
import * as disabled from "@/app/api/channel/disabled/route";
import * as batch from "@/app/api/channel/batch/route";
import * as fix from "@/app/api/channel/fix/route";
import * as models from "@/app/api/channel/models/route";
import { loadChannelsForRouting, setChannelStatus } from "@/lib/channels/routing";
import { toChannelConfig } from "@/lib/relay/memory/channel";

type Caller = { id: number; cookie: string };
let root: Caller;
let admin: Caller;
let user: Caller;

beforeAll(async () => {
  const db = await getDb();
  const row = await db.user.findUniqueOrThrow({ where: { username: "root" } });
  root = { id: row.id, cookie: await sessionCookieFor(row.id) };
  admin = await createUser({ username: "chadmin", role: 10 });
  user = await createUser({ username: "chuser" });
});

const base = { type: 1, name: "openai-main", key: "sk-upstream-key-000001", models: "gpt-4o,gpt-4o-mini", group: "default" };

async function create(body: Record<string, unknown>, as: Caller = admin) {
  return call(channels.POST, "POST", "/api/channel/", { as, body });
}

async function counts() {
  const db = await getDb();
  return { channels: await db.channel.count(), abilities: await db.ability.count() };
}

async function abilitiesOf(channelId: number) {
  const db = await getDb();
  return db.ability.findMany({ where: { channel_id: channelId }, orderBy: [{ group: "asc" }, { model: "asc" }] });
}

describe("creating channels", () => {
  it("refuses bad input with the console's messages and writes nothing", async () => {
    const before = await counts();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, name: "" }, "请填写渠道名称和渠道密钥！"],
      [{ ...base, key: "  " }, "请填写渠道名称和渠道密钥！"],
      [{ ...base, key: "\n\n", mode: "batch" }, "请填写渠道名称和渠道密钥！"],
      [{ ...base, models: "" }, "请至少选择一个模型！"],
      [{ ...base, models: [" ", ""] }, "请至少选择一个模型！"],
      [{ ...base, model_mapping: "{not json" }, "模型映射必须是合法的 JSON 格式！"],
      [{ ...base, model_mapping: '["a"]' }, "模型映射必须是合法的 JSON 格式！"],
      [{ ...base, model_mapping: '{"a": 1}' }, "模型映射必须是合法的 JSON 格式！"],
      [{ ...base, status_code_mapping: "[]" }, "状态码复写必须是合法的 JSON 格式！"],
      [{ ...base, output_limits: '{"gpt-4o": "many"}' }, "输出上限必须是 JSON 对象，每个模型的值为正整数！"],
      [{ ...base, output_limits: '{"gpt-4o": 0}' }, "输出上限必须是 JSON 对象，每个模型的值为正整数！"],
      [{ ...base, type: 9999 }, "未知的渠道类型"],
      [{ ...base, priority: -1000 }, "优先级不能小于 -999"],
      [{ ...base, weight: -1 }, "权重不能小于 0"],
      // Past the Int columns (32-bit on PostgreSQL and MySQL): a 500 there, silently kept on SQLite.
      [{ ...base, weight: 2 ** 31 }, "超出范围"],
      [{ ...base, priority: 99_999_999_999 }, "超出范围"],
      [{ ...base, max_input_tokens: 2 ** 32 }, "超出范围"],
    ];
    for (const [body, message] of cases) {
      const res = await create(body);
      expect(res.status, message).toBe(400);
      expect(res.json.success).toBe(false);
      expect(res.json.message).toContain(message);
    }
    expect(await counts()).toEqual(before);
  });

  it("is for admins only", async () => {
    const res = await create(base, user);
    expect(res.status).toBe(403);
    const list = await call(channels.GET, "GET", "/api/channel/", { as: user });
    expect(list.status).toBe(403);
  });

  it("creates one channel per key line in batch mode, with models × groups abilities", async () => {
    const before = await counts();
    const keys = ["sk-batch-key-aaaaaaaa1", "sk-batch-key-aaaaaaaa2", "sk-batch-key-aaaaaaaa3"];
    const res = await create({
      ...base,
      name: "batch",
      mode: "batch",
      key: `${keys[0]}\n\n  ${keys[1]}  \r\n${keys[2]}\n`,
      models: ["gpt-4o", " gpt-4o-mini", "gpt-4o"],
      group: "default, vip,default",
      priority: 5,
      weight: 3,
    });
    expect(res.json.success).toBe(true);
    expect(res.json.data).toHaveLength(3);
    for (const ch of res.json.data) expect(ch.key).toBe("");
    const after = await counts();
    expect(after.channels - before.channels).toBe(3);
    expect(after.abilities - before.abilities).toBe(3 * 2 * 2);

    const db = await getDb();
    const rows = await db.channel.findMany({ where: { name: "batch" }, orderBy: { id: "asc" } });
    expect(rows.map((r) => r.models)).toEqual(["gpt-4o,gpt-4o-mini", "gpt-4o,gpt-4o-mini", "gpt-4o,gpt-4o-mini"]);
    expect(rows[0]!.group).toBe("default,vip");
    rows.forEach((r, i) => {
      expect(r.key).not.toContain("sk-batch");
      expect(open(r.key)).toBe(keys[i]);
    });
    const abilities = await abilitiesOf(rows[0]!.id);
    expect(abilities.map((a) => `${a.group}/${a.model}/${a.priority}/${a.weight}/${a.enabled}`)).toEqual([
      "default/gpt-4o/5/3/true",
      "default/gpt-4o-mini/5/3/true",
      "vip/gpt-4o/5/3/true",
      "vip/gpt-4o-mini/5/3/true",
    ]);
  });

  it("keeps a multi-line key whole in single mode", async () => {
    const res = await create({ ...base, name: "single-multiline", key: "line-one-key\nline-two-key" });
    expect(res.json.data).toHaveLength(1);
    const db = await getDb();
    const row = await db.channel.findUniqueOrThrow({ where: { id: res.json.data[0].id } });
    expect(open(row.key)).toBe("line-one-key\nline-two-key");
  });

  it("fills type defaults and trims base_url", async () => {
    const azure = await create({ ...base, type: 3, name: "azure", base_url: "https://x.openai.azure.com///" });
    expect(azure.json.data[0]).toMatchObject({ other: "2023-06-01-preview", base_url: "https://x.openai.azure.com", auto_ban: 1 });
    const qwen = await create({ ...base, type: 17, name: "qwen", other: " " });
    expect(qwen.json.data[0].other).toBe("");
    const own = await create({ ...base, type: 3, name: "azure-own", other: "2024-02-01" });
    expect(own.json.data[0].other).toBe("2024-02-01");
  });
});

describe("channel types that run tasks only (Midjourney, Suno)", () => {
  it("creates them in single and batch mode, with their abilities", async () => {
    const db = await getDb();
    for (const [type, model] of [
      [2, "mj_imagine"],
      [5, "mj_imagine"],
      [36, "suno_music"],
    ] as const) {
      for (const mode of ["single", "batch"] as const) {
        const res = await create({ ...base, type, mode, name: `tasks-${type}-${mode}`, key: "k1\nk2", models: model });
        expect(res.status, `${type} ${mode}`).toBe(200);
        const ids = (res.json.data as { id: number; type: number }[]).map((c) => c.id);
        expect(ids).toHaveLength(mode === "batch" ? 2 : 1);
        for (const id of ids) {
          expect((await db.channel.findUniqueOrThrow({ where: { id } })).type).toBe(type);
          expect(await db.ability.count({ where: { channel_id: id, model } })).toBe(1);
        }
      }
    }
  });

  it("lets a channel change to one and back", async () => {
    const made = await create({ ...base, name: "to-mj" });
    const id = made.json.data[0].id as number;
    const toMj = await call(channels.PUT, "PUT", "/api/channel/", {
      as: root,
      body: { id, type: 5, key: "mj-secret", models: "mj_imagine" },
    });
    expect(toMj.json).toMatchObject({ success: true, data: { type: 5 } });
    const renamed = await call(channels.PUT, "PUT", "/api/channel/", { as: admin, body: { id, type: 5, name: "old-mj", status: 2 } });
    expect(renamed.json.success).toBe(true);
    expect(renamed.json.data).toMatchObject({ type: 5, name: "old-mj", status: 2 });
    const back = await call(channels.PUT, "PUT", "/api/channel/", { as: root, body: { id, type: 1, key: "sk-back" } });
    expect(back.json.data).toMatchObject({ type: 1 });
  });
});

describe("keys of composite types", () => {
  const serviceAccount = JSON.stringify(
    {
      type: "service_account",
      project_id: "qiao-e2e",
      private_key: "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n",
      client_email: "relay@qiao-e2e.iam.gserviceaccount.com",
    },
    null,
    2,
  );
  const vertex = { ...base, type: 41, name: "vertex", models: "gemini-1.5-pro-001" };

  it("refuses a key of the wrong shape, in single and batch mode, and writes nothing", async () => {
    const before = await counts();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, type: 15, key: "api-key|secret|extra" }, "密钥格式应为 API Key|Secret Key（百度文心千帆）"],
      [{ ...base, type: 16, key: "no-dot" }, "密钥格式应为 id.secret（智谱 ChatGLM）"],
      [{ ...base, type: 18, key: "appid|secret" }, "密钥格式应为 APPID|APISecret|APIKey（讯飞星火认知）"],
      [{ ...base, type: 23, key: "secret-only" }, "密钥格式应为 AppId|SecretId|SecretKey（腾讯混元）"],
      [{ ...base, type: 33, key: "AKIA|secret" }, "密钥格式应为 AccessKey|SecretAccessKey|Region（AWS Claude）"],
      [{ ...base, type: 33, key: "AKIA|s|us-east-1\nAKIA|s", mode: "batch" }, "第 2 行：密钥格式应为 AccessKey|SecretAccessKey|Region"],
      [{ ...vertex, key: "sk-not-json" }, "Vertex AI 的密钥应为服务账号的 JSON 凭证"],
      [{ ...vertex, key: JSON.stringify({ project_id: "p", private_key: "k" }) }, "缺少 client_email 字段"],
      [{ ...vertex, key: serviceAccount, mode: "batch" }, "不能批量创建"],
    ];
    for (const [body, message] of cases) {
      const res = await create(body);
      expect(res.status, message).toBe(400);
      expect(res.json.success).toBe(false);
      expect(res.json.message).toContain(message);
    }
    expect(await counts()).toEqual(before);
  });

  it("creates a Vertex channel from a multi-line JSON key, stored whole", async () => {
    const res = await create({ ...vertex, key: serviceAccount });
    expect(res.json.success).toBe(true);
    const db = await getDb();
    const row = await db.channel.findUniqueOrThrow({ where: { id: res.json.data[0].id } });
    expect(open(row.key)).toBe(serviceAccount);
    expect(row.other).toBe("us-central1");
  });

  it("checks a new key on update against the stored type, and writes nothing when it is wrong", async () => {
    const made = await create({ ...base, type: 18, name: "spark", key: "appid|secret|key", models: "SparkDesk-v3.5" });
    const id = made.json.data[0].id;
    const db = await getDb();
    const before = await db.channel.findUniqueOrThrow({ where: { id } });
    const put = (body: Record<string, unknown>) => call(channels.PUT, "PUT", "/api/channel/", { as: admin, body: { id, ...body } });
    const alone = await put({ key: "appid|secret", name: "renamed" });
    expect(alone.status).toBe(400);
    expect(alone.json.message).toContain("密钥格式应为 APPID|APISecret|APIKey（讯飞星火认知）");
    const moved = await call(channels.PUT, "PUT", "/api/channel/", { as: root, body: { id, type: 41, key: "appid|secret|key" } });
    expect(moved.status).toBe(400);
    expect(moved.json.message).toContain("Vertex AI 的密钥应为服务账号的 JSON 凭证");
    expect(await db.channel.findUniqueOrThrow({ where: { id } })).toEqual(before);
    const good = await put({ key: "appid2|secret2|key2" });
    expect(good.json.success).toBe(true);
    expect(open((await db.channel.findUniqueOrThrow({ where: { id } })).key)).toBe("appid2|secret2|key2");
  });
});

describe("reading channels", () => {
  let target: { id: number; key: string };

  beforeAll(async () => {
    const res = await create({ ...base, name: "readable", key: "sk-readable-secret-123456", priority: 100, models: "readable-model" });
    target = { id: res.json.data[0].id, key: "sk-readable-secret-123456" };
  });

  it("never returns a key in list, search or get", async () => {
    const responses = [
      await call(channels.GET, "GET", "/api/channel/?p=0&page_size=100", { as: admin }),
      await call(channels.GET, "GET", "/api/channel/?id_sort=true&page_size=100", { as: root }),
      await call(search.GET, "GET", `/api/channel/search?keyword=${target.id}`, { as: admin }),
      await call(search.GET, "GET", `/api/channel/search?keyword=${target.key}`, { as: admin }),
      await call(one.GET, "GET", `/api/channel/${target.id}`, { as: admin, params: { id: String(target.id) } }),
    ];
    const db = await getDb();
    const plainKeys = (await db.channel.findMany({ select: { key: true } })).map((r) => open(r.key));
    for (const res of responses) {
      expect(res.json.success).toBe(true);
      for (const key of plainKeys) expect(res.text).not.toContain(key);
      const items = Array.isArray(res.json.data.items) ? res.json.data.items : [res.json.data];
      expect(items.length).toBeGreaterThan(0);
      for (const item of items) expect(item.key).toBe("");
    }
  });

  it("shows the key to root only, through the explicit reveal", async () => {
    const byAdmin = await call(reveal.POST, "POST", `/api/channel/${target.id}/key`, { as: admin, params: { id: String(target.id) } });
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.text).not.toContain(target.key);
    await markVerified(root.cookie); // the reveal asks root to step up (tests/api/step-up.test.ts)
    const byRoot = await call(reveal.POST, "POST", `/api/channel/${target.id}/key`, { as: root, params: { id: String(target.id) } });
    expect(byRoot.json.data).toEqual({ key: target.key });
    const missing = await call(reveal.POST, "POST", "/api/channel/999999/key", { as: root, params: { id: "999999" } });
    expect(missing.status).toBe(404);
  });

  it("orders by priority, or by id with id_sort", async () => {
    const byPriority = await call(channels.GET, "GET", "/api/channel/?page_size=100", { as: admin });
    const items = byPriority.json.data.items as Array<{ id: number; priority: number }>;
    expect(items[0]!.id).toBe(target.id);
    for (let i = 1; i < items.length; i++) {
      const [a, b] = [items[i - 1]!, items[i]!];
      expect(a.priority > b.priority || (a.priority === b.priority && a.id > b.id)).toBe(true);
    }
    const byId = await call(channels.GET, "GET", "/api/channel/?page_size=100&id_sort=true", { as: admin });
    const ids = (byId.json.data.items as Array<{ id: number }>).map((c) => c.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(byId.json.data.total).toBe(ids.length);
  });

  it("clamps paging", async () => {
    const db = await getDb();
    const total = await db.channel.count();
    const zero = await call(channels.GET, "GET", "/api/channel/?page_size=0", { as: admin });
    expect(zero.json.data).toMatchObject({ page: 0, page_size: 1, total });
    expect(zero.json.data.items).toHaveLength(1);
    const huge = await call(channels.GET, "GET", "/api/channel/?page_size=1000", { as: admin });
    expect(huge.json.data.page_size).toBe(100);
    const negative = await call(channels.GET, "GET", "/api/channel/?p=-1&page_size=2", { as: admin });
    expect(negative.json.data.page).toBe(0);
    const second = await call(channels.GET, "GET", "/api/channel/?p=1&page_size=2&id_sort=true", { as: admin });
    const first = await call(channels.GET, "GET", "/api/channel/?p=0&page_size=2&id_sort=true", { as: admin });
    expect(second.json.data.items[0].id).toBeLessThan(first.json.data.items[1].id);
  });

  it("searches by id, name, whole key, group and model", async () => {
    const find = async (qs: string) =>
      (
        (await call(search.GET, "GET", `/api/channel/search?${qs}&page_size=100`, { as: admin })).json.data.items as Array<{
          id: number;
          name: string;
        }>
      ).map((c) => c.id);
    expect(await find(`keyword=${target.id}`)).toContain(target.id);
    expect(await find("keyword=readab")).toEqual([target.id]);
    expect(await find(`keyword=${target.key}`)).toEqual([target.id]);
    // A piece of a key finds nothing: non-root admins cannot probe keys.
    expect(await find("keyword=sk-readable-secret")).toEqual([]);
    const batchIds = await find("keyword=sk-batch-key-aaaaaaaa2");
    expect(batchIds).toHaveLength(1);
    const vip = await find("group=vip");
    expect(vip).toHaveLength(3);
    expect(await find("group=vi")).toEqual([]);
    expect(await find("model=readable-model")).toEqual([target.id]);
    expect(await find("keyword=batch&group=vip&model=gpt-4o-mini")).toHaveLength(3);
  });

  it("lists catalog and channel models for the picker", async () => {
    const res = await call(models.GET, "GET", "/api/channel/models", { as: admin });
    const list = res.json.data as Array<{ id: string; owned_by: string }>;
    expect(list).toContainEqual({ id: "gpt-4o", owned_by: "OpenAI" });
    expect(list).toContainEqual({ id: "readable-model", owned_by: "custom" });
    expect(new Set(list.map((m) => m.id)).size).toBe(list.length);
  });
});

describe("updating and deleting channels", () => {
  let id: number;
  const key = "sk-update-me-0000000001";

  beforeAll(async () => {
    const res = await create({ ...base, name: "editable", key, models: "m1,m2", group: "default" });
    id = res.json.data[0].id;
  });

  const put = (body: Record<string, unknown>) => call(channels.PUT, "PUT", "/api/channel/", { as: admin, body: { id, ...body } });

  it("keeps abilities in step with models, groups, priority and weight", async () => {
    const res = await put({ models: "m2,m3,m4", group: "vip,svip", priority: 7, weight: 9 });
    expect(res.json.success).toBe(true);
    expect(res.json.data.key).toBe("");
    const abilities = await abilitiesOf(id);
    expect(abilities.map((a) => `${a.group}/${a.model}`)).toEqual(["svip/m2", "svip/m3", "svip/m4", "vip/m2", "vip/m3", "vip/m4"]);
    expect(new Set(abilities.map((a) => `${a.priority}/${a.weight}`))).toEqual(new Set(["7/9"]));
  });

  it("keeps the stored key when the key is blank and replaces it otherwise", async () => {
    const db = await getDb();
    await put({ key: "", name: "editable-renamed" });
    const kept = await db.channel.findUniqueOrThrow({ where: { id } });
    expect(open(kept.key)).toBe(key);
    expect(kept.name).toBe("editable-renamed");
    await put({ key: "sk-new-key-2" });
    expect(open((await db.channel.findUniqueOrThrow({ where: { id } })).key)).toBe("sk-new-key-2");
  });

  it("validates updates like creation and writes nothing on error", async () => {
    const db = await getDb();
    const before = await db.channel.findUniqueOrThrow({ where: { id } });
    for (const [body, message] of [
      [{ name: "" }, "请填写渠道名称和渠道密钥！"],
      [{ models: "" }, "请至少选择一个模型！"],
      [{ model_mapping: "nope", name: "changed" }, "模型映射必须是合法的 JSON 格式！"],
      [{ status: 3 }, "状态只能是"],
    ] as const) {
      const res = await put(body);
      expect(res.json.message).toContain(message);
    }
    expect(await db.channel.findUniqueOrThrow({ where: { id } })).toEqual(before);
    const missing = await call(channels.PUT, "PUT", "/api/channel/", { as: admin, body: { id: 999999, name: "x" } });
    expect(missing.status).toBe(404);
  });

  it("disables and enables, keeping abilities and the status note in step", async () => {
    await put({ status: 2 });
    expect((await abilitiesOf(id)).every((a) => !a.enabled)).toBe(true);
    await put({ status: 1 });
    expect((await abilitiesOf(id)).every((a) => a.enabled)).toBe(true);

    expect(await setChannelStatus(id, 3, "upstream said 401")).toBe(true);
    const db = await getDb();
    const disabledRow = await db.channel.findUniqueOrThrow({ where: { id } });
    expect(disabledRow.status).toBe(3);
    expect(JSON.parse(disabledRow.other_info)).toMatchObject({ status_reason: "upstream said 401", status_time: expect.any(Number) });
    expect((await abilitiesOf(id)).every((a) => !a.enabled)).toBe(true);
    // A second auto-disable of the same channel changes nothing.
    expect(await setChannelStatus(id, 3, "again")).toBe(false);
    expect(JSON.parse((await db.channel.findUniqueOrThrow({ where: { id } })).other_info).status_reason).toBe("upstream said 401");

    const enabled = await put({ status: 1 });
    expect(enabled.json.data.status).toBe(1);
    const row = await db.channel.findUniqueOrThrow({ where: { id } });
    expect(row.other_info.includes("status_reason")).toBe(false);
    expect((await abilitiesOf(id)).every((a) => a.enabled)).toBe(true);
  });

  it("tells the relay's router about every write", async () => {
    const events: string[] = [];
    const off = onInvalidation((e) => events.push(e.kind));
    try {
      await put({ weight: 1 });
      await setChannelStatus(id, 2, "manual");
      await setChannelStatus(id, 1);
    } finally {
      off();
    }
    expect(events).toEqual(["channels", "channels", "channels"]);
  });

  it("gives the relay opened keys and split lists; the relay parses the mappings once", async () => {
    await put({
      model_mapping: '{"m2": "upstream-m2"}',
      status_code_mapping: '{"400": "500"}',
      output_limits: '{"upstream-m2": 4096}',
      key: "sk-routing-key",
    });
    const all = await loadChannelsForRouting();
    const mine = all.find((c) => c.id === id)!;
    expect(mine).toMatchObject({
      key: "sk-routing-key",
      models: ["m2", "m3", "m4"],
      groups: ["vip", "svip"],
      auto_ban: true,
      status: 1,
    });
    expect(toChannelConfig(mine)).toMatchObject({
      model_mapping: { m2: "upstream-m2" },
      status_code_mapping: { "400": 500 },
      output_limits: { "upstream-m2": 4096 },
    });
    const db = await getDb();
    expect(all).toHaveLength(await db.channel.count());
  });

  it("deletes one channel with its abilities", async () => {
    const res = await call(one.DELETE, "DELETE", `/api/channel/${id}/`, { as: admin, params: { id: String(id) } });
    expect(res.json.success).toBe(true);
    const db = await getDb();
    expect(await db.channel.findUnique({ where: { id } })).toBeNull();
    expect(await abilitiesOf(id)).toHaveLength(0);
    const again = await call(one.DELETE, "DELETE", `/api/channel/${id}/`, { as: admin, params: { id: String(id) } });
    expect(again.status).toBe(404);
    const junk = await call(one.GET, "GET", "/api/channel/abc", { as: admin, params: { id: "abc" } });
    expect(junk.status).toBe(404);
  });

  it("deletes disabled channels (status 2 and 3) and answers the count", async () => {
    const a = (await create({ ...base, name: "dis-a", status: 2 })).json.data[0].id;
    const b = (await create({ ...base, name: "dis-b" })).json.data[0].id;
    const c = (await create({ ...base, name: "keep-c" })).json.data[0].id;
    await setChannelStatus(b, 3, "auto");
    const db = await getDb();
    const disabledCount = await db.channel.count({ where: { status: { in: [2, 3] } } });
    const res = await call(disabled.DELETE, "DELETE", "/api/channel/disabled", { as: admin });
    expect(res.json.data).toBe(disabledCount);
    expect(await db.channel.count({ where: { id: { in: [a, b] } } })).toBe(0);
    expect(await db.ability.count({ where: { channel_id: { in: [a, b] } } })).toBe(0);
    expect(await db.channel.findUnique({ where: { id: c } })).not.toBeNull();
  });

  it("batch deletes by ids and refuses an empty selection", async () => {
    const ids = [(await create({ ...base, name: "bd-1" })).json.data[0].id, (await create({ ...base, name: "bd-2" })).json.data[0].id];
    const none = await call(batch.POST, "POST", "/api/channel/batch", { as: admin, body: { ids: [] } });
    expect(none.json.message).toContain("请先选择要删除的通道！");
    const res = await call(batch.POST, "POST", "/api/channel/batch", { as: admin, body: { ids: [...ids, 999999] } });
    expect(res.json.data).toBe(2);
    const db = await getDb();
    expect(await db.ability.count({ where: { channel_id: { in: ids } } })).toBe(0);
  });

  it("rebuilds every ability row with fix", async () => {
    const db = await getDb();
    const expected = await db.ability.findMany({ orderBy: [{ channel_id: "asc" }, { group: "asc" }, { model: "asc" }] });
    const someChannel = expected[0]!.channel_id;
    await db.ability.deleteMany({ where: { channel_id: someChannel } });
    await db.ability.updateMany({ data: { priority: -5 } });
    await db.ability.create({ data: { group: "ghost", model: "ghost", channel_id: someChannel } });
    const res = await call(fix.POST, "POST", "/api/channel/fix", { as: admin });
    expect(res.json.data).toBe(await db.channel.count());
    expect(await db.ability.findMany({ orderBy: [{ channel_id: "asc" }, { group: "asc" }, { model: "asc" }] })).toEqual(expected);
  });
});
