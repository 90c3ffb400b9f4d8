// Reading channels for the console: list, search, one channel, the model picker, and the root-only
// key reveal. No function here returns a key except revealChannelKey.
import { textFilter } from "@/lib/db/text-search";
import { notFound } from "@/lib/errors";
import { type AuditBy, writeAudit } from "@/lib/audit/write";
import { getDb } from "@/lib/db";
import { type Page, pagedFind } from "@/lib/db/paging";
import type { Prisma } from "@/lib/db/generated/sqlite/client";
import { CHANNEL_CATALOG, CHANNEL_TYPE_CODES } from "@/lib/channels/catalog";
import { splitList, splitKeyLines } from "@/lib/channels/fields";
import { openChannelKey } from "@/lib/channels/routing";
import { CHANNEL_VIEW_SELECT, toChannelView, type ChannelView } from "@/lib/channels/view";
import type { ChannelListQuery, ChannelSearchQuery } from "@/lib/channels/schemas";
import { isMultiKeyMode } from "@/lib/channels/keys";
import { multiKeyCounts } from "@/lib/channels/multi-keys";

const orderFor = (idSort: boolean): Prisma.ChannelOrderByWithRelationInput[] =>
  idSort ? [{ id: "desc" }] : [{ priority: "desc" }, { id: "desc" }];

async function pageOf(where: Prisma.ChannelWhereInput, q: ChannelListQuery): Promise<Page<ChannelView>> {
  const db = await getDb();
  return pagedFind(q, {
    count: () => db.channel.count({ where }),
    rows: (window) => db.channel.findMany({ where, select: CHANNEL_VIEW_SELECT, orderBy: orderFor(q.id_sort), ...window }),
    view: async (rows) => {
      const counts = await multiKeyCounts(rows.filter((r) => isMultiKeyMode(r.multi_key_mode)).map((r) => r.id));
      return rows.map((r) => toChannelView(r, counts.get(r.id) ?? null));
    },
  });
}

export const listChannels = (q: ChannelListQuery) => pageOf({}, q);

/** A comma-list column holding `item` as one whole entry. */
async function listHas(field: "group", item: string): Promise<Prisma.ChannelWhereInput> {
  const [starts, ends, inside] = await Promise.all([
    textFilter("channels", field, "startsWith", `${item},`),
    textFilter("channels", field, "endsWith", `,${item}`),
    textFilter("channels", field, "contains", `,${item},`),
  ]);
  return { OR: [{ [field]: item }, starts, ends, inside] };
}

/** Shortest text treated as a possible key; shorter keywords only match ids and names. */
const MIN_KEY_LENGTH = 8;

/**
 * Ids of channels one of whose key lines equals `keyword` exactly. Keys are sealed, so this opens
 * them in memory (an admin's search, not a hot path). Only whole keys match: a substring match
 * would let an admin who may not read keys recover one a character at a time.
 */
async function channelIdsWithKey(keyword: string): Promise<number[]> {
  if (keyword.length < MIN_KEY_LENGTH || /\s/.test(keyword)) return [];
  const db = await getDb();
  const rows = await db.channel.findMany({ select: { id: true, key: true } });
  return rows.filter((r) => splitKeyLines(openChannelKey(r.key)).includes(keyword)).map((r) => r.id);
}

/** keyword: id (exact), name (contains) or a whole key; group: one of the channel's groups; model: contains (all literally). */
export async function searchChannels(q: ChannelSearchQuery): Promise<Page<ChannelView>> {
  const and: Prisma.ChannelWhereInput[] = [];
  if (q.keyword) {
    const or: Prisma.ChannelWhereInput[] = [await textFilter("channels", "name", "contains", q.keyword)];
    if (/^\d{1,9}$/.test(q.keyword)) or.push({ id: Number(q.keyword) });
    const keyIds = await channelIdsWithKey(q.keyword);
    if (keyIds.length) or.push({ id: { in: keyIds } });
    and.push({ OR: or });
  }
  if (q.group) and.push(await listHas("group", q.group));
  if (q.model) and.push(await textFilter("channels", "models", "contains", q.model));
  return pageOf({ AND: and }, q);
}

export async function getChannel(id: number): Promise<ChannelView> {
  const db = await getDb();
  const row = await db.channel.findUnique({ where: { id }, select: CHANNEL_VIEW_SELECT });
  if (!row) throw notFound("渠道不存在");
  return toChannelView(row);
}

/** The plain key (root only: an admin may manage channels without reading upstream secrets). */
/** A channel's whole key (root); the reveal is audited. */
export async function revealChannelKey(id: number, by: AuditBy): Promise<{ key: string }> {
  const db = await getDb();
  const row = await db.channel.findUnique({ where: { id }, select: { key: true, name: true } });
  if (!row) throw notFound("渠道不存在");
  await writeAudit({ ...by, action: "channel.key_reveal", target_type: "channel", target_id: id, detail: { name: row.name } });
  return { key: openChannelKey(row.key) };
}

export type ModelEntry = { id: string; owned_by: string };

/**
 * Every model the console can offer: the catalog's defaults (owned by the first type listing
 * them) and whatever channels already serve (owned_by "custom" when not in the catalog), by name.
 */
export async function listChannelModels(): Promise<ModelEntry[]> {
  const owners = new Map<string, string>();
  for (const type of CHANNEL_TYPE_CODES) {
    for (const model of CHANNEL_CATALOG[type].models) if (!owners.has(model)) owners.set(model, CHANNEL_CATALOG[type].name);
  }
  const db = await getDb();
  const rows = await db.channel.findMany({ select: { models: true } });
  for (const row of rows) for (const model of splitList(row.models)) if (!owners.has(model)) owners.set(model, "custom");
  return [...owners].map(([id, owned_by]) => ({ id, owned_by })).sort((a, b) => a.id.localeCompare(b.id));
}
