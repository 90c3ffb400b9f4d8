// What the relay needs from channels: every channel with its key opened and its list columns
// split (the mappings stay text: lib/relay/channel.ts parses them, once), and the one status change the relay makes (auto-disable / auto-enable).
import { getDb } from "@/lib/db";
import { nowSeconds } from "@/lib/db/num";
import { open } from "@/lib/crypto/secret-box";
import { publishInvalidation } from "@/lib/cache/bus";
import { otherInfoForStatus, parseOtherInfo, splitList, CHANNEL_STATUS } from "@/lib/channels/fields";

const SEALED_PREFIX = "v1:";

/**
 * The plain key of a stored channel. Values that are not sealed (rows imported from a new-api
 * database, which kept keys in plain text) are returned as they are.
 */
export function openChannelKey(stored: string): string {
  if (!stored.startsWith(SEALED_PREFIX)) return stored;
  try {
    return open(stored);
  } catch {
    console.error("[channels] a channel key could not be decrypted; was CRYPTO_SECRET changed?");
    return "";
  }
}

export type RoutingChannel = {
  id: number;
  type: number;
  name: string;
  /** 1 enabled, 2 disabled, 3 auto-disabled. */
  status: number;
  key: string;
  openai_organization: string;
  base_url: string;
  other: string;
  test_model: string;
  models: string[];
  groups: string[];
  /** JSON text as stored; toChannelConfig (lib/relay/channel.ts) parses it. */
  model_mapping: string;
  status_code_mapping: string;
  priority: number;
  weight: number;
  auto_ban: boolean;
  max_input_tokens: number;
  tag: string;
  status_reason: string;
  status_time: number;
  /** Root set the address (base_url, type): see agentForChannel in lib/relay/runtime. */
  address_by_root: boolean;
};

/** Every channel (enabled and disabled), keys opened, ready for the relay's in-memory router. */
export async function loadChannelsForRouting(): Promise<RoutingChannel[]> {
  const db = await getDb();
  const rows = await db.channel.findMany({
    select: {
      id: true,
      type: true,
      name: true,
      status: true,
      key: true,
      openai_organization: true,
      base_url: true,
      other: true,
      test_model: true,
      models: true,
      group: true,
      model_mapping: true,
      status_code_mapping: true,
      priority: true,
      weight: true,
      auto_ban: true,
      max_input_tokens: true,
      tag: true,
      other_info: true,
      address_by_root: true,
    },
    orderBy: { id: "asc" },
  });
  return rows.map(({ group, key, model_mapping, status_code_mapping, models, auto_ban, other_info, ...rest }) => {
    const note = parseOtherInfo(other_info);
    return {
      ...rest,
      key: openChannelKey(key),
      models: splitList(models),
      groups: splitList(group),
      model_mapping: model_mapping ?? "",
      status_code_mapping: status_code_mapping ?? "",
      auto_ban: auto_ban === 1,
      status_reason: typeof note.status_reason === "string" ? note.status_reason : "",
      status_time: typeof note.status_time === "number" ? note.status_time : 0,
    };
  });
}

/**
 * Sets a channel's status (1 enabled, 2 disabled, 3 auto-disabled) with the reason and time in
 * other_info, and its abilities' enabled flag, in one transaction. The write is conditional on the
 * status it read, so of two relays disabling the same channel only one records its reason.
 * Returns false when the channel does not exist or already has that status.
 */
export async function setChannelStatus(id: number, status: number, reason?: string): Promise<boolean> {
  const db = await getDb();
  const current = await db.channel.findUnique({ where: { id }, select: { status: true, other_info: true } });
  if (!current || current.status === status) return false;
  const other_info = otherInfoForStatus(
    current.other_info,
    status,
    reason ?? (status === CHANNEL_STATUS.enabled ? undefined : ""),
    nowSeconds(),
  );
  const changed = await db.$transaction(async (tx) => {
    const { count } = await tx.channel.updateMany({ where: { id, status: current.status }, data: { status, other_info } });
    if (count === 0) return false;
    await tx.ability.updateMany({ where: { channel_id: id }, data: { enabled: status === CHANNEL_STATUS.enabled } });
    return true;
  });
  if (changed) publishInvalidation({ kind: "channels" });
  return changed;
}
