// Writing channels from the console. Every write changes the channel rows and their abilities in
// one transaction, then tells the relay's router to reload.
import { badRequest, notFound } from "@/lib/errors";
import { getDb } from "@/lib/db";
import type { Prisma } from "@/lib/db/generated/sqlite/client";
import { nowSeconds } from "@/lib/db/num";
import { seal } from "@/lib/crypto/secret-box";
import { publishInvalidation } from "@/lib/cache/bus";
import { rebuildAbilities, rebuildAllAbilities } from "@/lib/channels/abilities";
import { CHANNEL_STATUS, defaultOtherFor, otherInfoForStatus, splitKeyLines } from "@/lib/channels/fields";
import { CHANNEL_VIEW_SELECT, toChannelView, type ChannelView } from "@/lib/channels/view";
import { type ChannelCreateInput, type ChannelUpdateInput, channelKeyProblem } from "@/lib/channels/schemas";
import { addressColumns, checkChannelAddress, checkOtherChange, movesChannel } from "@/lib/channels/address";
import { changesAddressOther, channelOtherProblem } from "@/lib/channels/other";
import { isRoot } from "@/lib/auth/roles";
import { relayRefusal } from "@/lib/relay/providers";

/** Large batches and the full rebuild may take longer than Prisma's 5 s default. */
const LONG_TX = { timeout: 60_000, maxWait: 10_000 };

const CHANNEL_STATUS_DISABLED = [CHANNEL_STATUS.manuallyDisabled, CHANNEL_STATUS.autoDisabled];

/** Who saves: the role decides where the channel may point (lib/channels/address). */
export type ChannelActor = { role: number };

/** Channels of a type the relay does not serve cannot be created, nor can a channel change to one. */
function refuseNotRelayed(type: number): void {
  const refusal = relayRefusal(type);
  if (refusal) throw badRequest(refusal);
}

/** Creates one channel, or one per non-empty key line in batch mode, all or none. */
export async function createChannels(input: ChannelCreateInput, actor: ChannelActor): Promise<ChannelView[]> {
  const { mode, key = "", ...fields } = input;
  const keys = mode === "batch" ? splitKeyLines(key) : [key.trim()];
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
      rows.push(row);
    }
    return rows;
  }, LONG_TX);
  publishInvalidation({ kind: "channels" });
  return created.map(toChannelView);
}

/**
 * Updates the given fields of a channel. A blank key keeps the stored one, except that below root
 * a new type or base_url needs the key again, and a new `other` that shapes the address needs root
 * and the key; enabling clears the disable reason; an empty `other` takes the type's default.
 */
export async function updateChannel(input: ChannelUpdateInput, actor: ChannelActor): Promise<ChannelView> {
  const { id, key, status, ...fields } = input;
  const db = await getDb();
  const current = await db.channel.findUnique({
    where: { id },
    select: { type: true, base_url: true, other: true, status: true, other_info: true },
  });
  if (!current) throw notFound("渠道不存在");
  const { type, base_url, ...rest } = fields;
  // A row of a type that is not relayed may still be edited; changing a type to one is refused.
  if (type !== undefined && type !== current.type) refuseNotRelayed(type);
  const newKey = key?.trim() ?? "";
  // The schema checked a key sent with its type; a key alone is checked against the stored type.
  const keyProblem = newKey && type === undefined ? channelKeyProblem(current.type, newKey) : null;
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
    return updated;
  });
  publishInvalidation({ kind: "channels" });
  return toChannelView(row);
}

async function deleteWhere(where: Prisma.ChannelWhereInput): Promise<number> {
  const db = await getDb();
  const count = await db.$transaction(async (tx) => {
    const ids = (await tx.channel.findMany({ where, select: { id: true } })).map((r) => r.id);
    if (ids.length === 0) return 0;
    await tx.ability.deleteMany({ where: { channel_id: { in: ids } } });
    return (await tx.channel.deleteMany({ where: { id: { in: ids } } })).count;
  }, LONG_TX);
  if (count > 0) publishInvalidation({ kind: "channels" });
  return count;
}

export async function deleteChannel(id: number): Promise<void> {
  if ((await deleteWhere({ id })) === 0) throw notFound("渠道不存在");
}

/** Batch delete; returns how many of the ids existed. */
export const deleteChannels = (ids: number[]) => deleteWhere({ id: { in: ids } });

/** Deletes manually and automatically disabled channels; returns the count. */
export const deleteDisabledChannels = () => deleteWhere({ status: { in: CHANNEL_STATUS_DISABLED } });

/** Rebuilds every ability row from the channels; returns the number of channels. */
export async function fixChannelAbilities(): Promise<number> {
  const db = await getDb();
  const count = await db.$transaction((tx) => rebuildAllAbilities(tx), LONG_TX);
  publishInvalidation({ kind: "channels" });
  return count;
}
