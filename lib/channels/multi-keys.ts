// The keys of a multi-key channel from the console: `POST /api/channel/multi_key/manage` (new-api's
// ManageMultiKeys: the key list with each key's state and usage, enable, disable, delete, and
// adding keys), and the enabled/total counts the channel list shows. Keys are never returned:
// each is shown as maskKey's preview. Every change publishes a "channels" invalidation, so the
// relay's routing table picks it up, and is audited (action and key index, never a key).
import { badRequest, notFound } from "@/lib/errors";
import { getDb } from "@/lib/db";
import { nowSeconds, num } from "@/lib/db/num";
import { seal } from "@/lib/crypto/secret-box";
import { publishInvalidation } from "@/lib/cache/bus";
import { type AuditBy, writeAudit } from "@/lib/audit/write";
import { CHANNEL_STATUS, parseOtherInfo } from "@/lib/channels/fields";
import { CHANNEL_KEY_STATUS, isMultiKeyMode, joinChannelKeys, maskKey, splitChannelKeys } from "@/lib/channels/keys";
import { channelKeyHash } from "@/lib/channels/key-hash";
import { ALL_KEYS_DISABLED } from "@/lib/channels/key-state";
import { openChannelKey, setChannelStatus } from "@/lib/channels/routing";
import { CHANNEL_MSG, channelKeyProblem, type MultiKeyManageInput } from "@/lib/channels/schemas";

export const MULTI_KEY_MSG = {
  notMultiKey: "该渠道不是多密钥模式",
  indexMissing: (verb: string) => `未指定要${verb}的密钥索引`,
  indexOutOfRange: "密钥索引超出范围",
  disabled: "密钥已禁用",
  enabled: "密钥已启用",
  enabledAll: (n: number) => `已启用 ${n} 个密钥`,
  disabledAll: (n: number) => `已禁用 ${n} 个密钥`,
  noneToDisable: "没有可禁用的密钥",
  deleted: "密钥已删除",
  lastKey: "不能删除最后一个密钥",
  deletedDisabled: (n: number) => `已删除 ${n} 个自动禁用的密钥`,
  noneDisabled: "没有需要删除的自动禁用密钥",
  added: (n: number) => `已添加 ${n} 个密钥`,
  noneAdded: "没有新的密钥（空行和已有的密钥不会重复添加）",
  unsupported: "不支持的操作",
} as const;

/** One key as get_key_status lists it (new-api's fields, with its usage). */
export type KeyStatusView = {
  index: number;
  status: number;
  disabled_time: number;
  reason: string;
  key_preview: string;
  used_quota: number;
  request_count: number;
};

export type KeyStatusPage = {
  keys: KeyStatusView[];
  total: number;
  page: number;
  page_size: number;
  total_pages: number;
  enabled_count: number;
  manual_disabled_count: number;
  auto_disabled_count: number;
};

type KeyRow = {
  key_hash: string;
  status: number;
  disabled_reason: string;
  disabled_time: number;
  used_quota: bigint;
  request_count: number;
};

/** A multi-key channel as the actions need it: its keys in order, each with its row (if any). */
async function loadMultiKeyChannel(id: number) {
  const db = await getDb();
  const channel = await db.channel.findUnique({
    where: { id },
    select: { id: true, name: true, type: true, key: true, multi_key_mode: true, status: true, other_info: true },
  });
  if (!channel) throw notFound(CHANNEL_MSG.notFound);
  if (!isMultiKeyMode(channel.multi_key_mode)) throw badRequest(MULTI_KEY_MSG.notMultiKey);
  const rows: KeyRow[] = await db.channelKey.findMany({
    where: { channel_id: id },
    select: { key_hash: true, status: true, disabled_reason: true, disabled_time: true, used_quota: true, request_count: true },
  });
  const byHash = new Map(rows.map((r) => [r.key_hash, r]));
  const keys = splitChannelKeys(channel.type, openChannelKey(channel.key), channel.multi_key_mode).map((text, index) => {
    const hash = channelKeyHash(text);
    const row = byHash.get(hash);
    return { text, hash, index, status: row?.status ?? CHANNEL_KEY_STATUS.enabled, row };
  });
  return { channel, keys };
}

type Loaded = Awaited<ReturnType<typeof loadMultiKeyChannel>>;

function keyAt(loaded: Loaded, index: number | undefined, verb: string) {
  if (index === undefined) throw badRequest(MULTI_KEY_MSG.indexMissing(verb));
  const key = loaded.keys[index];
  if (!key) throw badRequest(MULTI_KEY_MSG.indexOutOfRange);
  return key;
}

/** Sets keys' status (2 or 1) by hash, creating rows where missing. */
async function setKeyStatus(channelId: number, hashes: readonly string[], status: number) {
  const db = await getDb();
  const disabled = status !== CHANNEL_KEY_STATUS.enabled;
  const data = { status, disabled_reason: "", disabled_time: disabled ? nowSeconds() : 0 };
  await db.$transaction(
    hashes.map((key_hash) =>
      db.channelKey.upsert({
        where: { channel_id_key_hash: { channel_id: channelId, key_hash } },
        create: { channel_id: channelId, key_hash, ...data },
        update: data,
      }),
    ),
  );
}

/** Writes a new key field (sealed) and drops the rows of the keys it no longer holds. */
async function rewriteKeys(loaded: Loaded, keep: readonly { text: string; hash: string }[]) {
  const db = await getDb();
  const { channel } = loaded;
  await db.$transaction([
    db.channel.update({
      where: { id: channel.id },
      data: {
        key: seal(
          joinChannelKeys(
            channel.type,
            keep.map((k) => k.text),
          ),
        ),
      },
    }),
    db.channelKey.deleteMany({ where: { channel_id: channel.id, key_hash: { notIn: keep.map((k) => k.hash) } } }),
  ]);
}

/**
 * A channel the relay took down because its last key was: once a key is enabled again, so is the
 * channel (a channel an admin disabled, or one down for another reason, stays as it is).
 */
async function reviveIfAllKeysWereDown(loaded: Loaded) {
  const { channel } = loaded;
  const reason = parseOtherInfo(channel.other_info).status_reason;
  if (channel.status === CHANNEL_STATUS.autoDisabled && typeof reason === "string" && reason.startsWith(ALL_KEYS_DISABLED)) {
    await setChannelStatus(channel.id, CHANNEL_STATUS.enabled);
  }
}

function statusPage(loaded: Loaded, input: MultiKeyManageInput): KeyStatusPage {
  const all = loaded.keys.map(
    (k): KeyStatusView => ({
      index: k.index,
      status: k.status,
      disabled_time: k.status === CHANNEL_KEY_STATUS.enabled ? 0 : (k.row?.disabled_time ?? 0),
      reason: k.status === CHANNEL_KEY_STATUS.enabled ? "" : (k.row?.disabled_reason ?? ""),
      key_preview: maskKey(k.text),
      used_quota: num(k.row?.used_quota ?? 0n),
      request_count: k.row?.request_count ?? 0,
    }),
  );
  const count = (status: number) => all.filter((k) => k.status === status).length;
  const filtered = input.status === undefined ? all : all.filter((k) => k.status === input.status);
  const pageSize = input.page_size && input.page_size > 0 ? input.page_size : 50;
  const totalPages = Math.max(1, Math.ceil(filtered.length / pageSize));
  const page = Math.min(Math.max(1, input.page ?? 1), totalPages);
  return {
    keys: filtered.slice((page - 1) * pageSize, page * pageSize),
    total: filtered.length,
    page,
    page_size: pageSize,
    total_pages: totalPages,
    enabled_count: count(CHANNEL_KEY_STATUS.enabled),
    manual_disabled_count: count(CHANNEL_KEY_STATUS.manuallyDisabled),
    auto_disabled_count: count(CHANNEL_KEY_STATUS.autoDisabled),
  };
}

/** The keys of `text` a channel of this type would add: valid, not blank, not already there. */
function newKeysOf(loaded: Loaded, text: string): { text: string; hash: string }[] {
  const { channel } = loaded;
  const have = new Set(loaded.keys.map((k) => k.hash));
  const added = splitChannelKeys(channel.type, text, channel.multi_key_mode).map((t) => ({ text: t, hash: channelKeyHash(t) }));
  for (const [i, k] of added.entries()) {
    const problem = channelKeyProblem(channel.type, k.text);
    if (problem) throw badRequest(CHANNEL_MSG.keyItem(i + 1, problem));
  }
  return added.filter((k) => !have.has(k.hash));
}

/** One action of POST /api/channel/multi_key/manage; the answer's message says what was done. */
export async function manageMultiKeys(input: MultiKeyManageInput, by: AuditBy): Promise<Done> {
  const loaded = await loadMultiKeyChannel(input.channel_id);
  if (input.action === "get_key_status") return { data: statusPage(loaded, input), message: "" };
  const result = await changeKeys(loaded, input);
  await publishInvalidation({ kind: "channels" });
  await writeAudit({
    ...by,
    action: "channel.multi_key_manage",
    target_type: "channel",
    target_id: loaded.channel.id,
    detail: { name: loaded.channel.name, action: input.action, ...(input.key_index === undefined ? {} : { key_index: input.key_index }) },
  });
  return result;
}

/** What an action answers: its data and the message the console shows. */
type Done = { data: unknown; message: string };

async function changeKeys(loaded: Loaded, input: MultiKeyManageInput): Promise<Done> {
  const id = loaded.channel.id;
  switch (input.action) {
    case "disable_key": {
      const key = keyAt(loaded, input.key_index, "禁用");
      await setKeyStatus(id, [key.hash], CHANNEL_KEY_STATUS.manuallyDisabled);
      return { data: null, message: MULTI_KEY_MSG.disabled };
    }
    case "enable_key": {
      const key = keyAt(loaded, input.key_index, "启用");
      await setKeyStatus(id, [key.hash], CHANNEL_KEY_STATUS.enabled);
      await reviveIfAllKeysWereDown(loaded);
      return { data: null, message: MULTI_KEY_MSG.enabled };
    }
    case "enable_all_keys": {
      const off = loaded.keys.filter((k) => k.status !== CHANNEL_KEY_STATUS.enabled);
      await setKeyStatus(
        id,
        off.map((k) => k.hash),
        CHANNEL_KEY_STATUS.enabled,
      );
      if (off.length) await reviveIfAllKeysWereDown(loaded);
      return { data: null, message: MULTI_KEY_MSG.enabledAll(off.length) };
    }
    case "disable_all_keys": {
      const on = loaded.keys.filter((k) => k.status === CHANNEL_KEY_STATUS.enabled);
      if (!on.length) throw badRequest(MULTI_KEY_MSG.noneToDisable);
      await setKeyStatus(
        id,
        on.map((k) => k.hash),
        CHANNEL_KEY_STATUS.manuallyDisabled,
      );
      return { data: null, message: MULTI_KEY_MSG.disabledAll(on.length) };
    }
    case "delete_key": {
      const key = keyAt(loaded, input.key_index, "删除");
      if (loaded.keys.length === 1) throw badRequest(MULTI_KEY_MSG.lastKey);
      await rewriteKeys(
        loaded,
        loaded.keys.filter((k) => k !== key),
      );
      return { data: null, message: MULTI_KEY_MSG.deleted };
    }
    case "delete_disabled_keys": {
      // new-api's meaning: the keys the relay disabled; keys an admin disabled stay.
      const keep = loaded.keys.filter((k) => k.status !== CHANNEL_KEY_STATUS.autoDisabled);
      const deleted = loaded.keys.length - keep.length;
      if (deleted === 0) throw badRequest(MULTI_KEY_MSG.noneDisabled);
      if (keep.length === 0) throw badRequest(MULTI_KEY_MSG.lastKey);
      await rewriteKeys(loaded, keep);
      return { data: deleted, message: MULTI_KEY_MSG.deletedDisabled(deleted) };
    }
    case "add_keys": {
      const added = newKeysOf(loaded, input.keys ?? "");
      if (!added.length) throw badRequest(MULTI_KEY_MSG.noneAdded);
      await rewriteKeys(loaded, [...loaded.keys, ...added]);
      return { data: added.length, message: MULTI_KEY_MSG.added(added.length) };
    }
    default:
      throw badRequest(MULTI_KEY_MSG.unsupported);
  }
}

/** Enabled and total keys of the multi-key channels among `ids` (the channel list's "3/5 密钥"). */
export async function multiKeyCounts(ids: readonly number[]): Promise<Map<number, { enabled: number; total: number }>> {
  const out = new Map<number, { enabled: number; total: number }>();
  if (!ids.length) return out;
  const db = await getDb();
  const [channels, off] = await Promise.all([
    db.channel.findMany({ where: { id: { in: [...ids] } }, select: { id: true, type: true, key: true, multi_key_mode: true } }),
    db.channelKey.findMany({
      where: { channel_id: { in: [...ids] }, status: { not: CHANNEL_KEY_STATUS.enabled } },
      select: { channel_id: true, key_hash: true },
    }),
  ]);
  const disabled = new Set(off.map((r) => `${r.channel_id}:${r.key_hash}`));
  for (const c of channels) {
    const keys = splitChannelKeys(c.type, openChannelKey(c.key), c.multi_key_mode);
    out.set(c.id, { total: keys.length, enabled: keys.filter((k) => !disabled.has(`${c.id}:${channelKeyHash(k)}`)).length });
  }
  return out;
}
