// What the relay needs from channels: every channel with its key opened and its list columns
// split (the mappings stay text: lib/relay/memory/channel.ts parses them, once), and the one status change the relay makes (auto-disable / auto-enable).
import { getDirectDb } from "@/lib/db/direct";
import { bool, int, nowSeconds, str } from "@/lib/db/num";
import { open } from "@/lib/crypto/secret-box";
import { publishInvalidation } from "@/lib/cache/bus";
import { notifyRootOfChannel } from "@/lib/channels/notify-root";
import { otherInfoForStatus, parseOtherInfo, splitList, CHANNEL_STATUS } from "@/lib/channels/fields";
import { hideSecrets } from "@/lib/net/mask";
import { componentLogger } from "@/lib/log";

const log = componentLogger("channels");

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
    log.error("a channel key could not be decrypted; was CRYPTO_SECRET changed?");
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
  /** JSON text as stored; toChannelConfig (lib/relay/memory/channel.ts) parses it. */
  model_mapping: string;
  status_code_mapping: string;
  /** The channel's own output limits, JSON text as stored (providers/output-limit.ts reads them parsed). */
  output_limits: string;
  priority: number;
  weight: number;
  auto_ban: boolean;
  max_input_tokens: number;
  tag: string;
  status_reason: string;
  status_time: number;
  /** Root set the address (base_url, type): see agentForChannel in lib/relay/memory/runtime. */
  address_by_root: boolean;
  /** "" = `key` is one key; "random" or "polling" = one key per line (lib/channels/keys.ts). */
  multi_key_mode: string;
  /** The hashes of this channel's keys that are disabled (channel_keys status 2 or 3); empty for one key. */
  disabled_keys: ReadonlySet<string>;
};

const NO_KEYS: ReadonlySet<string> = new Set();

/** Every channel (enabled and disabled), keys opened, ready for the relay's in-memory router. */
export async function loadChannelsForRouting(): Promise<RoutingChannel[]> {
  const db = await getDirectDb();
  const [rows, disabled] = await Promise.all([
    db.query(
      'SELECT id, type, name, status, "key", openai_organization, base_url, other, test_model, models, "group", model_mapping, status_code_mapping, output_limits, priority, weight, auto_ban, max_input_tokens, tag, other_info, address_by_root, multi_key_mode FROM channels ORDER BY id',
    ),
    disabledKeysByChannel(),
  ]);
  return rows.map((row) => {
    const note = parseOtherInfo(str(row.other_info));
    return {
      id: int(row.id),
      type: int(row.type),
      name: str(row.name),
      status: int(row.status),
      key: openChannelKey(str(row.key)),
      openai_organization: str(row.openai_organization),
      base_url: str(row.base_url),
      other: str(row.other),
      test_model: str(row.test_model),
      models: splitList(str(row.models)),
      groups: splitList(str(row.group)),
      model_mapping: str(row.model_mapping),
      status_code_mapping: str(row.status_code_mapping),
      output_limits: str(row.output_limits),
      priority: int(row.priority),
      weight: int(row.weight),
      auto_ban: int(row.auto_ban) === 1,
      max_input_tokens: int(row.max_input_tokens),
      tag: str(row.tag),
      status_reason: typeof note.status_reason === "string" ? note.status_reason : "",
      status_time: typeof note.status_time === "number" ? note.status_time : 0,
      address_by_root: bool(row.address_by_root),
      multi_key_mode: str(row.multi_key_mode),
      disabled_keys: disabled.get(int(row.id)) ?? NO_KEYS,
    };
  });
}

/** The disabled keys of every channel in one query: a key with no row, or status 1, is enabled. */
async function disabledKeysByChannel(): Promise<Map<number, Set<string>>> {
  const db = await getDirectDb();
  const rows = await db.query("SELECT channel_id, key_hash FROM channel_keys WHERE status <> 1");
  const out = new Map<number, Set<string>>();
  for (const row of rows) {
    const id = int(row.channel_id);
    let set = out.get(id);
    if (!set) out.set(id, (set = new Set()));
    set.add(str(row.key_hash));
  }
  return out;
}

/**
 * Sets a channel's status (1 enabled, 2 disabled, 3 auto-disabled) with the reason and time in
 * other_info, and its abilities' enabled flag, in one transaction. The write is conditional on the
 * status it read, so of two relays disabling the same channel only one records its reason.
 * Returns false when the channel does not exist or already has that status. Root is told by
 * e-mail (lib/channels/notify-root.ts).
 */
export async function setChannelStatus(id: number, status: number, rawReason?: string): Promise<boolean> {
  // The reason quotes upstream text; admins read it in the list's tooltip and root in the mail.
  const reason = rawReason === undefined ? undefined : hideSecrets(rawReason);
  const db = await getDirectDb();
  const [current] = await db.query("SELECT status, name, other_info FROM channels WHERE id = ?", [id]);
  if (!current || int(current.status) === status) return false;
  const other_info = otherInfoForStatus(
    str(current.other_info),
    status,
    reason ?? (status === CHANNEL_STATUS.enabled ? undefined : ""),
    nowSeconds(),
  );
  const { failed } = await db.transaction([
    {
      sql: "UPDATE channels SET status = ?, other_info = ? WHERE id = ? AND status = ?",
      params: [status, other_info, id, int(current.status)],
      required: true,
    },
    { sql: "UPDATE abilities SET enabled = ? WHERE channel_id = ?", params: [status === CHANNEL_STATUS.enabled, id] },
  ]);
  const changed = failed < 0;
  if (changed) {
    publishInvalidation({ kind: "channels" });
    void notifyRootOfChannel(id, str(current.name), status, reason ?? "");
  }
  return changed;
}
