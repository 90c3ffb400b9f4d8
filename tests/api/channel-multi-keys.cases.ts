// The multi-key channel API's cases, run by channel-multi-keys.test.ts on the default SQLite, by
// channel-multi-keys-pg.test.ts on PostgreSQL and channel-multi-keys-mysql.test.ts on MariaDB: creating and editing a multi-key channel,
// POST /api/channel/multi_key/manage (every action, its errors, its data), the list's key
// counts, and the relay's conditional per-key auto-disable racing with itself.
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { open } from "@/lib/crypto/secret-box";
import { call, createUser } from "@/tests/helpers/api";
import * as channels from "@/app/api/channel/route";
import * as manage from "@/app/api/channel/multi_key/manage/route";
import { channelKeyHash } from "@/lib/channels/key-hash";
import { ALL_KEYS_DISABLED, disableChannelKey } from "@/lib/channels/key-state";
import { setChannelStatus } from "@/lib/channels/routing";

type Caller = { id: number; cookie: string };

const KEYS = ["sk-mk-one-111111", "sk-mk-two-222222", "sk-mk-three-333333"];

export function multiKeyApiCases(tag: string) {
  let admin: Caller;
  let user: Caller;
  beforeAll(async () => {
    admin = await createUser({ username: `mkadmin-${tag}`, role: 10 });
    user = await createUser({ username: `mkuser-${tag}` });
  });

  const act = (body: Record<string, unknown>, as: Caller = admin) =>
    call(manage.POST, "POST", "/api/channel/multi_key/manage", { as, body });
  const status = async (channel_id: number, extra: Record<string, unknown> = {}) =>
    (await act({ channel_id, action: "get_key_status", ...extra })).json.data;
  async function createMulti(keys = KEYS, mode = "random") {
    const res = await call(channels.POST, "POST", "/api/channel/", {
      as: admin,
      body: { type: 1, name: `mk-${tag}`, key: keys.join("\n"), models: "gpt-4o-mini", multi_key_mode: mode },
    });
    expect(res.json.success, res.json.message).toBe(true);
    return res.json.data[0] as { id: number; multi_key_mode: string };
  }
  const storedKey = async (id: number) => open((await (await getDb()).channel.findUniqueOrThrow({ where: { id } })).key);

  describe(`multi-key channels through the API (${tag})`, () => {
    it("creates one channel holding every key, one per line, blank lines and repeats dropped", async () => {
      const res = await call(channels.POST, "POST", "/api/channel/", {
        as: admin,
        body: { type: 1, name: "mk", key: ` ${KEYS[0]}\n\n${KEYS[1]}\n${KEYS[0]}\n`, models: "gpt-4o-mini", multi_key_mode: "polling" },
      });
      expect(res.json.success).toBe(true);
      expect(res.json.data).toHaveLength(1);
      expect(res.json.data[0]).toMatchObject({ multi_key_mode: "polling", key: "" });
      expect(await storedKey(res.json.data[0].id)).toBe(`${KEYS[0]}\n${KEYS[1]}`);
    });

    it("refuses a bad mode, batch creation with a mode, and names the bad key of a composite type", async () => {
      const base = { type: 1, name: "mk", key: KEYS.join("\n"), models: "gpt-4o-mini" };
      const bad = await call(channels.POST, "POST", "/api/channel/", { as: admin, body: { ...base, multi_key_mode: "roundrobin" } });
      expect(bad.json).toMatchObject({ success: false, message: expect.stringContaining("多密钥模式只能是") });
      const batch = await call(channels.POST, "POST", "/api/channel/", {
        as: admin,
        body: { ...base, mode: "batch", multi_key_mode: "random" },
      });
      expect(batch.json).toMatchObject({ success: false, message: expect.stringContaining("批量创建是每行一个渠道") });
      const aws = await call(channels.POST, "POST", "/api/channel/", {
        as: admin,
        body: { ...base, type: 33, key: "AKIA1|SECRET1|us-east-1\nAKIA2-only", multi_key_mode: "random" },
      });
      expect(aws.json).toMatchObject({ success: false, message: expect.stringContaining("第 2 个密钥：") });
    });

    it("batch creation keeps its meaning: one single-key channel per line", async () => {
      const res = await call(channels.POST, "POST", "/api/channel/", {
        as: admin,
        body: { type: 1, name: "mk-batch", key: KEYS.join("\n"), models: "gpt-4o-mini", mode: "batch" },
      });
      expect(res.json.data).toHaveLength(3);
      expect(res.json.data.every((c: { multi_key_mode: string }) => c.multi_key_mode === "")).toBe(true);
    });

    it("switches a channel of several lines from one key to random, and the list counts its keys", async () => {
      const res = await call(channels.POST, "POST", "/api/channel/", {
        as: admin,
        body: { type: 1, name: "mk-switch", key: KEYS.join("\n"), models: "gpt-4o-mini" },
      });
      const id = res.json.data[0].id;
      expect((await act({ channel_id: id, action: "get_key_status" })).json).toMatchObject({
        success: false,
        message: "该渠道不是多密钥模式",
      });
      const put = await call(channels.PUT, "PUT", "/api/channel/", { as: admin, body: { id, multi_key_mode: "random" } });
      expect(put.json).toMatchObject({ success: true, data: { multi_key_mode: "random" } });
      await act({ channel_id: id, action: "disable_key", key_index: 1 });
      const list = await call(channels.GET, "GET", "/api/channel/?p=0&page_size=100&id_sort=true", { as: admin });
      const row = list.json.data.items.find((c: { id: number }) => c.id === id);
      expect(row.keys).toEqual({ enabled: 2, total: 3 });
      expect(list.text).not.toContain(KEYS[0]);
    });

    it("get_key_status lists each key masked, with its state, usage and the counts", async () => {
      const ch = await createMulti();
      const db = await getDb();
      await db.channelKey.create({
        data: {
          channel_id: ch.id,
          key_hash: channelKeyHash(KEYS[2]!),
          status: 3,
          disabled_reason: "状态码 401：bad",
          disabled_time: 123,
          used_quota: 900n,
          request_count: 4,
        },
      });
      const res = await act({ channel_id: ch.id, action: "get_key_status" });
      expect(res.json.success).toBe(true);
      expect(res.json.data).toEqual({
        keys: [
          { index: 0, status: 1, disabled_time: 0, reason: "", key_preview: "sk-m…11", used_quota: 0, request_count: 0 },
          { index: 1, status: 1, disabled_time: 0, reason: "", key_preview: "sk-m…22", used_quota: 0, request_count: 0 },
          {
            index: 2,
            status: 3,
            disabled_time: 123,
            reason: "状态码 401：bad",
            key_preview: "sk-m…33",
            used_quota: 900,
            request_count: 4,
          },
        ],
        total: 3,
        page: 1,
        page_size: 50,
        total_pages: 1,
        enabled_count: 2,
        manual_disabled_count: 0,
        auto_disabled_count: 1,
      });
      for (const key of KEYS) expect(res.text).not.toContain(key);
      // Filtered by status and paged: the counts stay the channel's.
      const page = await status(ch.id, { status: 1, page: 2, page_size: 1 });
      expect(page).toMatchObject({ total: 2, page: 2, page_size: 1, total_pages: 2, enabled_count: 2, auto_disabled_count: 1 });
      expect(page.keys.map((k: { index: number }) => k.index)).toEqual([1]);
    });

    it("disables and enables one key, then all, with new-api's messages", async () => {
      const ch = await createMulti();
      expect((await act({ channel_id: ch.id, action: "disable_key", key_index: 0 })).json).toMatchObject({
        success: true,
        message: "密钥已禁用",
      });
      let s = await status(ch.id);
      expect(s.keys[0]).toMatchObject({ status: 2 });
      expect(s.keys[0].disabled_time).toBeGreaterThan(0);
      expect((await act({ channel_id: ch.id, action: "enable_key", key_index: 0 })).json).toMatchObject({
        success: true,
        message: "密钥已启用",
      });
      expect((await status(ch.id)).enabled_count).toBe(3);
      expect((await act({ channel_id: ch.id, action: "disable_all_keys" })).json).toMatchObject({
        success: true,
        message: "已禁用 3 个密钥",
      });
      expect((await act({ channel_id: ch.id, action: "disable_all_keys" })).json).toMatchObject({
        success: false,
        message: "没有可禁用的密钥",
      });
      expect((await act({ channel_id: ch.id, action: "enable_all_keys" })).json).toMatchObject({
        success: true,
        message: "已启用 3 个密钥",
      });
      s = await status(ch.id);
      expect(s).toMatchObject({ enabled_count: 3, manual_disabled_count: 0 });
    });

    it("deletes a key (its row too) and the auto-disabled keys, rewriting the sealed key field", async () => {
      const ch = await createMulti();
      const db = await getDb();
      await act({ channel_id: ch.id, action: "disable_key", key_index: 0 });
      await db.channelKey.create({ data: { channel_id: ch.id, key_hash: channelKeyHash(KEYS[1]!), status: 3, disabled_reason: "dead" } });
      expect((await act({ channel_id: ch.id, action: "delete_disabled_keys" })).json).toMatchObject({
        success: true,
        message: "已删除 1 个自动禁用的密钥",
        data: 1,
      });
      expect(await storedKey(ch.id)).toBe(`${KEYS[0]}\n${KEYS[2]}`);
      expect((await act({ channel_id: ch.id, action: "delete_disabled_keys" })).json).toMatchObject({
        success: false,
        message: "没有需要删除的自动禁用密钥",
      });
      // The admin-disabled key stays, with its state, at its new place.
      expect((await status(ch.id)).keys.map((k: { status: number }) => k.status)).toEqual([2, 1]);
      expect((await act({ channel_id: ch.id, action: "delete_key", key_index: 0 })).json).toMatchObject({
        success: true,
        message: "密钥已删除",
      });
      expect(await storedKey(ch.id)).toBe(KEYS[2]);
      expect(await db.channelKey.count({ where: { channel_id: ch.id } })).toBe(0);
      expect((await act({ channel_id: ch.id, action: "delete_key", key_index: 0 })).json).toMatchObject({
        success: false,
        message: "不能删除最后一个密钥",
      });
    });

    it("adds keys in batch, skipping blanks and keys it already has", async () => {
      const ch = await createMulti(KEYS.slice(0, 1));
      const res = await act({ channel_id: ch.id, action: "add_keys", keys: `\n${KEYS[0]}\n${KEYS[1]}\n  ${KEYS[2]}  \n` });
      expect(res.json).toMatchObject({ success: true, message: "已添加 2 个密钥", data: 2 });
      expect(await storedKey(ch.id)).toBe(KEYS.join("\n"));
      expect((await act({ channel_id: ch.id, action: "add_keys", keys: KEYS[1] })).json).toMatchObject({ success: false });
    });

    it("answers errors in the envelope: no channel, bad index, missing index, unknown action, not an admin", async () => {
      const ch = await createMulti();
      expect((await act({ channel_id: 987654, action: "get_key_status" })).json).toMatchObject({ success: false, message: "渠道不存在" });
      expect((await act({ channel_id: ch.id, action: "disable_key", key_index: 3 })).json).toMatchObject({
        success: false,
        message: "密钥索引超出范围",
      });
      expect((await act({ channel_id: ch.id, action: "enable_key", key_index: -1 })).json.message).toBe("密钥索引超出范围");
      expect((await act({ channel_id: ch.id, action: "delete_key" })).json.message).toBe("未指定要删除的密钥索引");
      expect((await act({ channel_id: ch.id, action: "rotate" })).json).toMatchObject({ success: false, message: "不支持的操作" });
      const denied = await act({ channel_id: ch.id, action: "get_key_status" }, user);
      expect(denied.json.success).toBe(false);
      expect(denied.status).toBe(403);
    });

    it("a relay's per-key auto-disable is conditional: of two racing, one writes; the last key takes the channel down", async () => {
      const ch = await createMulti(KEYS.slice(0, 2));
      const hashes = KEYS.slice(0, 2).map(channelKeyHash);
      const raced = await Promise.all([
        disableChannelKey(ch.id, hashes[0]!, hashes, "状态码 401：first"),
        disableChannelKey(ch.id, hashes[0]!, hashes, "状态码 401：second"),
      ]);
      expect(raced.filter(Boolean)).toHaveLength(1);
      const db = await getDb();
      expect((await db.channel.findUniqueOrThrow({ where: { id: ch.id } })).status).toBe(1);
      expect(await disableChannelKey(ch.id, hashes[1]!, hashes, "状态码 403：gone")).toBe(true);
      const channel = await db.channel.findUniqueOrThrow({ where: { id: ch.id } });
      expect(channel.status).toBe(3);
      expect(JSON.parse(channel.other_info).status_reason).toBe(`${ALL_KEYS_DISABLED}：状态码 403：gone`);
      // Enabling a key brings back a channel that went down only because its keys did.
      await act({ channel_id: ch.id, action: "enable_key", key_index: 1 });
      expect((await db.channel.findUniqueOrThrow({ where: { id: ch.id } })).status).toBe(1);
      // A channel an admin disabled stays disabled.
      await setChannelStatus(ch.id, 2);
      await act({ channel_id: ch.id, action: "enable_all_keys" });
      expect((await db.channel.findUniqueOrThrow({ where: { id: ch.id } })).status).toBe(2);
    });

    it("a new key field keeps the rows of the keys it still holds and drops the others", async () => {
      const ch = await createMulti();
      await act({ channel_id: ch.id, action: "disable_key", key_index: 0 });
      await act({ channel_id: ch.id, action: "disable_key", key_index: 2 });
      const put = await call(channels.PUT, "PUT", "/api/channel/", { as: admin, body: { id: ch.id, key: `${KEYS[1]}\n${KEYS[0]}` } });
      expect(put.json.success).toBe(true);
      const s = await status(ch.id);
      expect(s.keys.map((k: { status: number }) => k.status)).toEqual([1, 2]);
      expect(await (await getDb()).channelKey.count({ where: { channel_id: ch.id } })).toBe(1);
    });
  });
}
