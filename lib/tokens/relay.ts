// What the relay needs from tokens: one indexed lookup by key hash, and recording that a token
// expired or ran out.
import { getDb } from "@/lib/db";
import { num } from "@/lib/db/num";
import { publishInvalidation } from "@/lib/cache/bus";
import { hashTokenKey } from "@/lib/tokens/keys";

export type RelayToken = {
  id: number;
  user_id: number;
  key_hash: string;
  status: number;
  name: string;
  expired_time: number;
  remain_quota: number;
  unlimited_quota: boolean;
  model_limits_enabled: boolean;
  model_limits: string;
  allow_ips: string;
  group: string;
};

/** The token for a bare 48-character key (no sk- prefix), or null when unknown or deleted. */
export async function findTokenByKey(key48: string): Promise<RelayToken | null> {
  const db = await getDb();
  const row = await db.token.findUnique({
    where: { key_hash: hashTokenKey(key48) },
    select: {
      id: true,
      user_id: true,
      key_hash: true,
      status: true,
      name: true,
      expired_time: true,
      remain_quota: true,
      unlimited_quota: true,
      model_limits_enabled: true,
      model_limits: true,
      allow_ips: true,
      group: true,
      deleted_at: true,
    },
  });
  if (!row || row.deleted_at) return null;
  const { deleted_at: _deleted, ...token } = row;
  return { ...token, remain_quota: num(token.remain_quota) };
}

/** Records a status (3 expired, 4 exhausted, …) unless already set; true when it changed. */
export async function markTokenStatus(id: number, status: number): Promise<boolean> {
  const db = await getDb();
  const row = await db.token.findUnique({ where: { id }, select: { key_hash: true } });
  if (!row) return false;
  const { count } = await db.token.updateMany({ where: { id, status: { not: status }, deleted_at: null }, data: { status } });
  if (count > 0) publishInvalidation({ kind: "token", keyHash: row.key_hash, id });
  return count > 0;
}
