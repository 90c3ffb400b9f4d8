// Where an admin below root may point a channel (lib/channels/address): moving a channel needs its
// key again, and with ChannelPrivateAddressAllowed off an admin's channel reaches no internal
// address, neither on save nor when a channel test or the relay connects. Root is never limited.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { getDb } from "@/lib/db";
import { open } from "@/lib/crypto/secret-box";
import { updateOption } from "@/lib/options";
import * as channels from "@/app/api/channel/route";
import * as testOne from "@/app/api/channel/test/[id]/route";
import { call, createUser, sessionCookieFor } from "@/tests/helpers/api";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, ENTRIES, seedUser, startRelay, type RelayServer } from "@/tests/helpers/relay";

type Caller = { id: number; cookie: string };
let root: Caller;
let admin: Caller;
let mock: OpenAIMock;

const MODEL = "gpt-4o-mini";
const KEY = "sk-stored-upstream-key-0001";
const KEY_MESSAGE = "修改渠道类型或 Base URL 时请重新填写渠道密钥！";

beforeAll(async () => {
  const db = await getDb();
  const row = await db.user.findUniqueOrThrow({ where: { username: "root" } });
  root = { id: row.id, cookie: await sessionCookieFor(row.id) };
  admin = await createUser({ username: "addr-admin", role: 10 });
  mock = await startOpenAIMock();
});
afterAll(async () => {
  await mock.close();
  await updateOption("ChannelPrivateAddressAllowed", "true");
});
beforeEach(async () => {
  mock.reset();
  await clearRelayData();
  await updateOption("ChannelPrivateAddressAllowed", "true");
});

const create = (body: Record<string, unknown>, as: Caller) =>
  call(channels.POST, "POST", "/api/channel/", {
    as,
    body: { type: 1, name: "addr", key: KEY, models: MODEL, group: "default", ...body },
  });
const update = (id: number, body: Record<string, unknown>, as: Caller) =>
  call(channels.PUT, "PUT", "/api/channel/", { as, body: { id, ...body } });
const testChannel = (id: number, as: Caller = admin) =>
  call(testOne.GET, "GET", `/api/channel/test/${id}`, { as, params: { id: String(id) } });

async function createdId(body: Record<string, unknown>, as: Caller): Promise<number> {
  const res = await create(body, as);
  expect(res.json.success, res.json.message).toBe(true);
  return res.json.data[0].id;
}

async function row(id: number) {
  const r = await (await getDb()).channel.findUniqueOrThrow({ where: { id } });
  return { ...r, key: open(r.key) };
}

describe("moving a channel needs its key below root", () => {
  it("refuses an admin's new base_url or type without the key and changes nothing", async () => {
    const id = await createdId({ base_url: "https://api.example.com" }, root);
    const before = await row(id);
    for (const body of [
      { base_url: "https://attacker.example.net" },
      { base_url: "https://attacker.example.net", key: "   " },
      { type: 4 },
      { type: 8, base_url: "https://attacker.example.net/v1/chat/completions", name: "renamed" },
    ]) {
      const res = await update(id, body, admin);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json).toEqual({ success: false, message: KEY_MESSAGE });
    }
    expect(await row(id)).toEqual(before);
  });

  it("lets an admin move a channel with the key re-entered, and edit other fields without it", async () => {
    const id = await createdId({ base_url: "https://api.example.com" }, root);
    // The edit form sends base_url and type back unchanged (trailing slash or not): not a move.
    const renamed = await update(id, { name: "renamed", base_url: "https://api.example.com/", type: 1, key: "" }, admin);
    expect(renamed.json.success, renamed.json.message).toBe(true);
    expect(await row(id)).toMatchObject({ name: "renamed", key: KEY, address_by_root: true });

    // address_by_root is the server's record; a body cannot set it.
    const moved = await update(id, { base_url: "https://other.example.com", key: "sk-admins-own-key", address_by_root: true }, admin);
    expect(moved.json.success, moved.json.message).toBe(true);
    expect(moved.json.data).toMatchObject({ base_url: "https://other.example.com", key: "", address_by_root: false });
    expect(await row(id)).toMatchObject({ base_url: "https://other.example.com", key: "sk-admins-own-key", address_by_root: false });
  });

  it("lets root move a channel keeping its stored key", async () => {
    const id = await createdId({ base_url: "https://api.example.com" }, admin);
    expect((await row(id)).address_by_root).toBe(false);
    const res = await update(id, { base_url: "https://elsewhere.example.com", type: 43 }, root);
    expect(res.json.success, res.json.message).toBe(true);
    expect(await row(id)).toMatchObject({ base_url: "https://elsewhere.example.com", type: 43, key: KEY, address_by_root: true });
  });
});

describe("a Vertex AI region is part of the host: checked, and changing it moves the channel", () => {
  const SERVICE_ACCOUNT = JSON.stringify({
    type: "service_account",
    project_id: "proj-1",
    client_email: "relay@proj-1.iam.gserviceaccount.com",
    private_key: "-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----\n",
  });
  const OTHER_KEY = SERVICE_ACCOUNT.replace("proj-1", "proj-2");
  const regionMessage = (r: string) => `部署地区「${r}」不合法：只能是 global，或由小写字母、数字和连字符组成（例如 us-central1）`;
  const vertex = (body: Record<string, unknown>, as: Caller) =>
    create({ type: 41, name: "vertex", key: SERVICE_ACCOUNT, models: "gemini-1.5-pro-001", other: "us-central1", ...body }, as);

  it("refuses a host-like region from an admin, with or without the key, and writes nothing", async () => {
    const id = (await vertex({}, root)).json.data[0].id as number;
    const before = await row(id);
    for (const [body, message] of [
      [{ other: "attacker.example/x?" }, regionMessage("attacker.example/x?")],
      [{ other: "attacker.example/x?", key: OTHER_KEY }, regionMessage("attacker.example/x?")],
      [{ other: '{"default": "us-central1", "gemini-1.5-pro-001": "attacker.example/x?"}' }, regionMessage("attacker.example/x?")],
      [{ other: "{not json" }, '部署地区的 JSON 应为一个对象，每个值都是地区，例如 {"default": "us-central1", "模型": "地区"}'],
      [{ type: 41, other: "evil.example#" }, regionMessage("evil.example#")],
    ] as const) {
      const res = await update(id, body, admin);
      expect(res.status, JSON.stringify(body)).toBe(400);
      // With the type, the schema answers ("参数错误：…"); without it, the stored type's rule.
      expect(res.json).toEqual({ success: false, message: expect.stringContaining(message) });
    }
    // Nor can a channel of a type without a region rule carry one into Vertex AI.
    const qwen = await createdId({ type: 17, other: "attacker.example/x?", key: "sk-q" }, root);
    const moved = await update(qwen, { type: 41, key: SERVICE_ACCOUNT }, root);
    expect(moved.json).toEqual({ success: false, message: regionMessage("attacker.example/x?") });
    expect(await row(id)).toEqual(before);
    expect((await row(qwen)).type).toBe(17);
  });

  it("refuses a host-like region on create, in batch mode too", async () => {
    const db = await getDb();
    for (const as of [admin, root]) {
      const res = await vertex({ other: "attacker.example/x?" }, as);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ success: false, message: `参数错误：${regionMessage("attacker.example/x?")}` });
    }
    const batch = await create({ type: 24, name: "gemini", key: "AIza-1\nAIza-2", mode: "batch", other: "v1beta/../../x" }, admin);
    expect(batch.json).toEqual({ success: false, message: "参数错误：API 版本应为 v 加数字，可带小写字母，例如 v1beta、v1" });
    expect(await db.channel.count()).toBe(0);
  });

  it("lets only root change a valid region, with the key re-entered", async () => {
    const id = (await vertex({}, root)).json.data[0].id as number;
    const before = await row(id);
    const byAdmin = await update(id, { other: "europe-west4" }, admin);
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.json).toEqual({ success: false, message: "只有超级管理员可以修改渠道的部署地区（Region）！" });
    const byAdminWithKey = await update(id, { other: "europe-west4", key: OTHER_KEY }, admin);
    expect(byAdminWithKey.json).toEqual({ success: false, message: "只有超级管理员可以修改渠道的部署地区（Region）！" });
    const byRootNoKey = await update(id, { other: '{"default": "europe-west4"}', key: " " }, root);
    expect(byRootNoKey.status).toBe(400);
    expect(byRootNoKey.json).toEqual({ success: false, message: "修改部署地区（Region）时请重新填写渠道密钥！" });
    expect(await row(id)).toEqual(before);

    // Sending the stored region back (the edit form does), or other fields, is not a change.
    const renamed = await update(id, { name: "renamed", other: "us-central1", type: 41 }, admin);
    expect(renamed.json.success, renamed.json.message).toBe(true);

    const moved = await update(id, { other: '{"default": "europe-west4", "gemini-1.5-pro-001": "global"}', key: SERVICE_ACCOUNT }, root);
    expect(moved.json.success, moved.json.message).toBe(true);
    expect(await row(id)).toMatchObject({
      name: "renamed",
      other: '{"default": "europe-west4", "gemini-1.5-pro-001": "global"}',
      key: SERVICE_ACCOUNT,
    });
  });

  it("treats a Cloudflare account id the same way", async () => {
    const id = await createdId({ type: 39, other: "0123456789abcdef0123456789abcdef", key: "cf-token" }, root);
    expect((await update(id, { other: "../../other" }, root)).json.message).toBe("Account ID 只能由字母、数字、下划线和连字符组成");
    expect((await update(id, { other: "fedcba9876543210" }, admin)).json.message).toBe("只有超级管理员可以修改渠道的Account ID！");
    expect((await update(id, { other: "fedcba9876543210" }, root)).json.message).toBe("修改Account ID时请重新填写渠道密钥！");
    expect((await update(id, { other: "fedcba9876543210", key: "cf-token-2" }, root)).json.success).toBe(true);
  });
});

describe("ChannelPrivateAddressAllowed off: saving", () => {
  beforeEach(async () => {
    await updateOption("ChannelPrivateAddressAllowed", "false");
  });

  it("refuses an admin's channel to loopback, private, link-local, CGNAT or unspecified addresses and creates nothing", async () => {
    const db = await getDb();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ base_url: mock.url }, "不能将渠道指向本机、内网或链路本地地址 127.0.0.1！"],
      [{ base_url: "http://localhost:11434" }, "不能将渠道指向本机、内网或链路本地地址：localhost 解析到"],
      [{ type: 4, base_url: "" }, "localhost 解析到"], // Ollama's default address
      [{ base_url: "http://[::1]:8080" }, "::1"],
      [{ base_url: "http://[::ffff:127.0.0.1]:8080" }, "::ffff:7f00:1"],
      [{ base_url: "http://10.1.2.3" }, "10.1.2.3"],
      [{ base_url: "http://172.20.0.5" }, "172.20.0.5"],
      [{ base_url: "http://192.168.1.10" }, "192.168.1.10"],
      [{ base_url: "http://169.254.169.254" }, "169.254.169.254"],
      [{ base_url: "http://100.100.100.200" }, "100.100.100.200"],
      [{ base_url: "http://0.0.0.0:8080" }, "0.0.0.0"],
      [{ base_url: "http://[fd00:ec2::254]" }, "fd00:ec2::254"],
      [{ base_url: "http://[fe80::1]" }, "fe80::1"],
      [{ base_url: "http://2130706433:8080" }, "127.0.0.1"],
      [{ type: 8, base_url: "http://127.0.0.1:9/v1/{model}/chat" }, "127.0.0.1"],
    ];
    for (const [body, message] of cases) {
      const res = await create(body, admin);
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(res.json.success).toBe(false);
      expect(res.json.message, JSON.stringify(body)).toContain(message);
    }
    expect(await db.channel.count()).toBe(0);
  });

  it("refuses an admin moving a channel to loopback even with the key, and changes nothing", async () => {
    const id = await createdId({ base_url: "https://api.example.com" }, admin);
    const before = await row(id);
    const res = await update(id, { base_url: "http://localhost:8080", key: "sk-other" }, admin);
    expect(res.status).toBe(403);
    expect(res.json.message).toContain("localhost 解析到");
    expect(await row(id)).toEqual(before);
  });

  it("accepts public addresses from an admin and any address from root", async () => {
    expect((await create({ base_url: "https://93.184.215.14" }, admin)).json.success).toBe(true);
    expect((await create({ base_url: mock.url }, root)).json.success).toBe(true);
    expect((await create({ type: 4, base_url: "" }, root)).json.success).toBe(true);
  });
});

describe("ChannelPrivateAddressAllowed on", () => {
  it("lets an admin save a channel to loopback (local vendors such as Ollama)", async () => {
    const id = await createdId({ base_url: mock.url }, admin);
    expect((await testChannel(id)).json.success).toBe(true);
    expect(mock.requests).toHaveLength(1);
  });
});

describe("ChannelPrivateAddressAllowed off: connecting", () => {
  afterEach(async () => {
    await updateOption("ChannelPrivateAddressAllowed", "true");
  });

  it("refuses the channel test of an admin's loopback channel saved while it was on", async () => {
    const byIp = await createdId({ base_url: mock.url, name: "by-ip" }, admin);
    const byName = await createdId({ base_url: mock.url.replace("127.0.0.1", "localhost"), name: "by-name" }, admin);
    const rootsOwn = await createdId({ base_url: mock.url, name: "roots" }, root);
    expect((await testChannel(byIp)).json.success).toBe(true);
    expect((await testChannel(byName)).json.success).toBe(true);
    expect(mock.requests).toHaveLength(2);

    await updateOption("ChannelPrivateAddressAllowed", "false");
    mock.reset();
    const refusedIp = await testChannel(byIp);
    expect(refusedIp.json.success).toBe(false);
    expect(refusedIp.json.message).toContain("127.0.0.1 是本机、内网或链路本地地址");
    expect(refusedIp.json.message).toContain("ChannelPrivateAddressAllowed");
    const refusedName = await testChannel(byName);
    expect(refusedName.json.success).toBe(false);
    expect(refusedName.json.message).toContain("localhost 解析到本机、内网或链路本地地址");
    expect(mock.requests).toHaveLength(0);

    // Root's own channel to the same address keeps working.
    expect((await testChannel(rootsOwn)).json.success).toBe(true);
    expect(mock.requests).toHaveLength(1);
  });

  it("lets root approve an admin's address by saving it", async () => {
    const id = await createdId({ base_url: mock.url }, admin);
    await updateOption("ChannelPrivateAddressAllowed", "false");
    expect((await testChannel(id)).json.success).toBe(false);
    const approved = await update(id, { base_url: mock.url }, root);
    expect(approved.json.success, approved.json.message).toBe(true);
    expect((await testChannel(id)).json.success).toBe(true);
    expect(mock.requests).toHaveLength(1);
  });

  for (const entry of ENTRIES) {
    describe(`relay traffic through the ${entry} entry`, () => {
      let relay: RelayServer;
      beforeAll(async () => {
        relay = await startRelay(entry);
      });
      afterAll(async () => {
        await relay.close();
      });

      const chat = (key: string) =>
        new OpenAI({ apiKey: key, baseURL: `${relay.url}/v1`, maxRetries: 0 }).chat.completions.create({
          model: MODEL,
          messages: [{ role: "user", content: "hi" }],
        });

      it("stops an admin's loopback channel at connect time, pooled connections included", async () => {
        await createdId({ base_url: mock.url.replace("127.0.0.1", "localhost") }, admin);
        const user = await seedUser();
        // On: served, and the pool keeps the connection to the mock open.
        expect((await chat(user.key)).choices[0]?.message.content).toBeTruthy();
        expect(mock.requests).toHaveLength(1);

        await updateOption("ChannelPrivateAddressAllowed", "false");
        const error = await chat(user.key).then(
          () => null,
          (e: InstanceType<typeof OpenAI.APIError>) => e,
        );
        expect(error?.status).toBe(502);
        expect(error?.message).toContain("QIAO_INTERNAL_ADDRESS");
        expect(mock.requests).toHaveLength(1);
      });

      it("keeps root's loopback channel working", async () => {
        await createdId({ base_url: mock.url }, root);
        await updateOption("ChannelPrivateAddressAllowed", "false");
        const user = await seedUser();
        expect((await chat(user.key)).choices[0]?.message.content).toBeTruthy();
        expect(mock.requests).toHaveLength(1);
      });
    });
  }
});
