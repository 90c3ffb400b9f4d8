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
