// The relay's write to one key of a multi-key channel (channel_keys, through the direct
// connection): the auto-disable of a dead key. The per-key usage is added by the ledger's batches
// (lib/billing/ledger.ts); the console's key management is lib/channels/multi-keys.ts.
import { getDirectDb } from "@/lib/db/direct";
import type { DbKind } from "@/lib/db/types";
import { nowSeconds, str } from "@/lib/db/num";
import { publishInvalidation } from "@/lib/cache/bus";
import { CHANNEL_STATUS } from "@/lib/channels/fields";
import { CHANNEL_KEY_STATUS } from "@/lib/channels/keys";
import { setChannelStatus } from "@/lib/channels/routing";
import { hideSecrets } from "@/lib/net/mask";

/** The reason a channel is auto-disabled with when its last enabled key was. */
export const ALL_KEYS_DISABLED = "所有密钥均已禁用";

/** A row for (channel, key) unless there is one: every state change below is then one conditional UPDATE. */
export function channelKeyInsertIgnore(kind: DbKind): string {
  const insert = "INTO channel_keys (channel_id, key_hash) VALUES (?, ?)";
  return kind === "mysql" ? `INSERT IGNORE ${insert}` : `INSERT ${insert} ON CONFLICT (channel_id, key_hash) DO NOTHING`;
}

/**
 * Disables one key of a channel automatically (status 3) with the reason and time, only if it is
 * still enabled, so of two relays racing one writes its reason. When that leaves none of
 * `allHashes` (the channel's keys) enabled, the channel itself is auto-disabled with
 * ALL_KEYS_DISABLED and this reason. Returns whether this call disabled the key.
 */
export async function disableChannelKey(
  channelId: number,
  keyHash: string,
  allHashes: readonly string[],
  rawReason: string,
): Promise<boolean> {
  const reason = hideSecrets(rawReason);
  const db = await getDirectDb();
  const { failed } = await db.transaction([
    { sql: channelKeyInsertIgnore(db.kind), params: [channelId, keyHash] },
    {
      sql: "UPDATE channel_keys SET status = ?, disabled_reason = ?, disabled_time = ? WHERE channel_id = ? AND key_hash = ? AND status = ?",
      params: [CHANNEL_KEY_STATUS.autoDisabled, reason, nowSeconds(), channelId, keyHash, CHANNEL_KEY_STATUS.enabled],
      required: true,
    },
  ]);
  if (failed >= 0) return false;
  publishInvalidation({ kind: "channels" });
  const rows = await db.query("SELECT key_hash FROM channel_keys WHERE channel_id = ? AND status <> ?", [
    channelId,
    CHANNEL_KEY_STATUS.enabled,
  ]);
  const disabled = new Set(rows.map((r) => str(r.key_hash)));
  if (allHashes.every((h) => disabled.has(h))) {
    await setChannelStatus(channelId, CHANNEL_STATUS.autoDisabled, `${ALL_KEYS_DISABLED}：${reason}`);
  }
  return true;
}
