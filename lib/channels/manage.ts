// Writing channels from the console. Every write changes the channel rows and their abilities in
// one transaction, then tells the relay's router to reload, and is audited: one row per channel
// created, edited (the fields that changed; the key only as masked lengths), enabled or disabled,
// or deleted.
import { badRequest, notFound } from "@/lib/errors";
import { getDb } from "@/lib/db";
import type { Prisma } from "@/lib/db/generated/sqlite/client";
import { nowSeconds } from "@/lib/db/num";
import { seal } from "@/lib/crypto/secret-box";
import { publishInvalidation } from "@/lib/cache/bus";
import type { AuditAction } from "@/lib/audit/actions";
import { changedFields } from "@/lib/audit/detail";
import { type AuditBy, type AuditEntry, maskSecret, writeAudits } from "@/lib/audit/write";
import { rebuildAbilities, rebuildAllAbilities } from "@/lib/channels/abilities";
import { CHANNEL_STATUS, defaultOtherFor, otherInfoForStatus, splitKeyLines } from "@/lib/channels/fields";
import { openChannelKey } from "@/lib/channels/routing";
import { isMultiKeyMode, joinChannelKeys, splitChannelKeys } from "@/lib/channels/keys";
import { channelKeyHash } from "@/lib/channels/key-hash";
import { CHANNEL_VIEW_SELECT, toChannelView, type ChannelView, type ChannelViewRow } from "@/lib/channels/view";
import { type ChannelCreateInput, type ChannelUpdateInput, channelKeyTextProblem } from "@/lib/channels/schemas";
import { addressColumns, checkChannelAddress, checkOtherChange, movesChannel } from "@/lib/channels/address";
import { changesAddressOther, channelOtherProblem } from "@/lib/channels/other";
import { isRoot } from "@/lib/auth/roles";
import { channelTypeRefusal } from "@/lib/relay/providers";

/** Large batches and the full rebuild may take longer than Prisma's 5 s default. */
const LONG_TX = { timeout: 60_000, maxWait: 10_000 };

const CHANNEL_STATUS_DISABLED = [CHANNEL_STATUS.manuallyDisabled, CHANNEL_STATUS.autoDisabled];

/** Who saves: the role decides where the channel may point (lib/channels/address). */
export type ChannelActor = { role: number };

/** An audit row about channel `id`. */
const channelAudit = (by: AuditBy, id: number, action: AuditAction, detail: Record<string, unknown>): AuditEntry => ({
  ...by,
  action,
  target_type: "channel",
  target_id: id,
  detail,
});

/** The columns an edit may change that the audit trail shows as from → to (status and key have their own). */
const AUDITED_FIELDS = [
  "type",
  "name",
  "openai_organization",
  "base_url",
  "other",
  "model_mapping",
  "status_code_mapping",
  "output_limits",
  "models",
  "group",
  "auto_ban",
  "test_model",
  "priority",
  "weight",
  "max_input_tokens",
  "tag",
  "multi_key_mode",
] as const;

/** Channels of a type nothing serves cannot be created, nor can a channel change to one. */
function refuseNotRelayed(type: number): void {
  const refusal = channelTypeRefusal(type);
  if (refusal) throw badRequest(refusal);
}

/** Creates one channel, or one per non-empty key line in batch mode, all or none. */
export async function createChannels(input: ChannelCreateInput, actor: ChannelActor, by: AuditBy): Promise<ChannelView[]> {
  const { mode, key = "", ...fields } = input;
  // Batch: a channel per line. Multi-key: one channel whose lines are its keys, kept one per line.
  const keys =
    mode === "batch"
      ? splitKeyLines(key)
      : isMultiKeyMode(fields.multi_key_mode ?? "")
        ? [joinChannelKeys(fields.type ?? 1, splitChannelKeys(fields.type ?? 1, key, fields.multi_key_mode!))]
        : [key.trim()];
  const type = fields.type ?? 1;
  const base_url = fields.base_url ?? "";
  refuseNotRelayed(type);
  await checkChannelAddress(actor, { type, base_url }, true);
  const base = {
    type,
    name: fields.name ?? "",
    openai_organization: fields.openai_organization ?? "",
    base_url,
    other: defaultOtherFor(type, fields.other ?? ""),
    model_mapping: fields.model_mapping ?? "",
    status_code_mapping: fields.status_code_mapping ?? "",
    output_limits: fields.output_limits ?? "",
    models: fields.models ?? "",
    group: fields.group || "default",
    auto_ban: fields.auto_ban ?? 1,
    test_model: fields.test_model ?? "",
    priority: fields.priority ?? 0,
    weight: fields.weight ?? 0,
    max_input_tokens: fields.max_input_tokens ?? 0,
    tag: fields.tag ?? "",
    multi_key_mode: mode === "batch" ? "" : (fields.multi_key_mode ?? ""),
    status: fields.status ?? 1,
    created_time: nowSeconds(),
    address_by_root: isRoot(actor),
  };
  const db = await getDb();
  const created = await db.$transaction(async (tx) => {
    const rows = [];
    for (const k of keys) {
      const row = await tx.channel.create({ data: { ...base, key: seal(k) }, select: CHANNEL_VIEW_SELECT });
      await rebuildAbilities(tx, row);
      rows.push({ row, key: k });
    }
    return rows;
  }, LONG_TX);
  await publishInvalidation({ kind: "channels" });
  await writeAudits(
    created.map(({ row, key: k }) =>
      channelAudit(by, row.id, "channel.create", {
        name: row.name,
        type: row.type,
        group: row.group,
        base_url: row.base_url,
        key: maskSecret(k),
      }),
    ),
  );
  return created.map(({ row }) => toChannelView(row));
}

/**
 * Updates the given fields of a channel. A blank key keeps the stored one, except that below root
 * a new type or base_url needs the key again, and a new `other` that shapes the address needs root
 * and the key; enabling clears the disable reason; an empty `other` takes the type's default.
 */
export async function updateChannel(input: ChannelUpdateInput, actor: ChannelActor, by: AuditBy): Promise<ChannelView> {
  const { id, key, status, ...fields } = input;
  const db = await getDb();
  const current = await db.channel.findUnique({ where: { id }, select: { ...CHANNEL_VIEW_SELECT, key: true } });
  if (!current) throw notFound("渠道不存在");
  const { type, base_url, ...rest } = fields;
  // A row of a type that is not relayed may still be edited; changing a type to one is refused.
  if (type !== undefined && type !== current.type) refuseNotRelayed(type);
  const multiKeyMode = fields.multi_key_mode ?? current.multi_key_mode;
  const keyType = type ?? current.type;
  // A multi-key field is stored one key per line (a JSON array for Vertex), as the relay splits it.
  const newKey = !key?.trim()
    ? ""
    : isMultiKeyMode(multiKeyMode)
      ? joinChannelKeys(keyType, splitChannelKeys(keyType, key, multiKeyMode))
      : key.trim();
  // The schema checked a key sent with its type and mode; otherwise the stored ones decide.
  const keyProblem =
    newKey && (type === undefined || fields.multi_key_mode === undefined) ? channelKeyTextProblem(keyType, newKey, multiKeyMode) : null;
  if (keyProblem) throw badRequest(keyProblem);
  const address = { type: type ?? current.type, base_url: base_url ?? current.base_url };
  // The `other` the row will hold, checked against the type it will have (either may be the stored one).
  const other = type !== undefined || fields.other !== undefined ? defaultOtherFor(address.type, fields.other ?? current.other) : null;
  const otherProblem = other === null ? null : channelOtherProblem(address.type, other);
  if (otherProblem) throw badRequest(otherProblem);
  if (other !== null && changesAddressOther(current, { type: address.type, other })) checkOtherChange(actor, address.type, newKey !== "");
  const moved = movesChannel(current, address);
  if (moved) await checkChannelAddress(actor, address, newKey !== "");
  const data: Prisma.ChannelUpdateInput = addressColumns(actor, { type, base_url }, moved);
  for (const [name, value] of Object.entries(rest)) if (value !== undefined) (data as Record<string, unknown>)[name] = value;
  if (fields.group !== undefined) data.group = fields.group || "default";
  if (newKey) data.key = seal(newKey);
  if (other !== null) data.other = other;
  if (status !== undefined && status !== current.status) {
    data.status = status;
    data.other_info = otherInfoForStatus(current.other_info, status, undefined, nowSeconds());
  }
  const row = await db.$transaction(async (tx) => {
    const updated = await tx.channel.update({ where: { id }, data, select: CHANNEL_VIEW_SELECT });
    await rebuildAbilities(tx, updated);
    // A new key field drops the rows of keys it no longer holds; the others keep state and usage.
    if (newKey)
      await tx.channelKey.deleteMany({ where: { channel_id: id, key_hash: { notIn: keyHashesOf(keyType, newKey, multiKeyMode) } } });
    return updated;
  });
  await publishInvalidation({ kind: "channels" });
  await writeAudits(editAudits(by, current, row, newKey));
  return toChannelView(row);
}

/** The hashes of a key field's keys (none for a channel of one key: it has no channel_keys rows). */
const keyHashesOf = (type: number, keyText: string, mode: string) =>
  isMultiKeyMode(mode) ? splitChannelKeys(type, keyText, mode).map(channelKeyHash) : [];

/** The audit rows of an edit: the fields that changed (the key masked), and the status on a row of its own. */
function editAudits(by: AuditBy, before: ChannelViewRow & { key: string }, after: ChannelViewRow, newKey: string): AuditEntry[] {
  const changes: Record<string, unknown> = changedFields(before, after, AUDITED_FIELDS);
  if (newKey) {
    const oldKey = openChannelKey(before.key);
    if (oldKey !== newKey) changes.key = { from: maskSecret(oldKey), to: maskSecret(newKey) };
  }
  const rows: AuditEntry[] = [];
  if (Object.keys(changes).length > 0) rows.push(channelAudit(by, after.id, "channel.update", { name: after.name, ...changes }));
  if (before.status !== after.status) {
    rows.push(channelAudit(by, after.id, "channel.status", { name: after.name, status: { from: before.status, to: after.status } }));
  }
  return rows;
}

/** Deletes the matching channels and their abilities, audited one row per channel as `action`; returns the count. */
async function deleteWhere(where: Prisma.ChannelWhereInput, by: AuditBy, action: AuditAction): Promise<number> {
  const db = await getDb();
  const { rows, count } = await db.$transaction(async (tx) => {
    const rows = await tx.channel.findMany({ where, select: { id: true, name: true } });
    if (rows.length === 0) return { rows, count: 0 };
    const ids = rows.map((r) => r.id);
    await tx.ability.deleteMany({ where: { channel_id: { in: ids } } });
    return { rows, count: (await tx.channel.deleteMany({ where: { id: { in: ids } } })).count };
  }, LONG_TX);
  if (count === 0) return 0;
  await publishInvalidation({ kind: "channels" });
  await writeAudits(rows.map((row) => channelAudit(by, row.id, action, { name: row.name })));
  return count;
}

export async function deleteChannel(id: number, by: AuditBy): Promise<void> {
  if ((await deleteWhere({ id }, by, "channel.delete")) === 0) throw notFound("渠道不存在");
}

/** Batch delete; returns how many of the ids existed. */
export const deleteChannels = (ids: number[], by: AuditBy) => deleteWhere({ id: { in: ids } }, by, "channel.delete_batch");

/** Deletes manually and automatically disabled channels; returns the count. */
export const deleteDisabledChannels = (by: AuditBy) =>
  deleteWhere({ status: { in: CHANNEL_STATUS_DISABLED } }, by, "channel.delete_disabled");

/** Rebuilds every ability row from the channels; returns the number of channels. */
export async function fixChannelAbilities(): Promise<number> {
  const db = await getDb();
  const count = await db.$transaction((tx) => rebuildAllAbilities(tx), LONG_TX);
  await publishInvalidation({ kind: "channels" });
  return count;
}
