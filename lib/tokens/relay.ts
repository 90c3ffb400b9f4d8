// What the relay needs from tokens: one indexed lookup by key hash, through the driver
// (lib/db/direct.ts).
import { getDirectDb } from "@/lib/db/direct";
import { big, bool, int, str } from "@/lib/db/num";
import { hashTokenKey } from "@/lib/tokens/keys";

export type RelayToken = {
  id: number;
  user_id: number;
  key_hash: string;
  status: number;
  name: string;
  expired_time: number;
  /** Exact: a limited key's balance. */
  remain_quota: bigint;
  unlimited_quota: boolean;
  model_limits_enabled: boolean;
  model_limits: string;
  allow_ips: string;
  group: string;
  /** The key's own limits (lib/limits): 0 / "" = none. */
  rpm_limit: number;
  tpm_limit: number;
  concurrency_limit: number;
  budget_quota: bigint;
  budget_period: string;
};

/** The token for a bare 48-character key (no sk- prefix), or null when unknown or deleted. */
export async function findTokenByKey(key48: string): Promise<RelayToken | null> {
  const db = await getDirectDb();
  const [row] = await db.query(
    'SELECT id, user_id, key_hash, status, name, expired_time, remain_quota, unlimited_quota, model_limits_enabled, model_limits, allow_ips, "group", rpm_limit, tpm_limit, concurrency_limit, budget_quota, budget_period FROM tokens WHERE key_hash = ? AND deleted_at IS NULL',
    [hashTokenKey(key48)],
  );
  if (!row) return null;
  return {
    id: int(row.id),
    user_id: int(row.user_id),
    key_hash: str(row.key_hash),
    status: int(row.status),
    name: str(row.name),
    expired_time: int(row.expired_time),
    remain_quota: big(row.remain_quota),
    unlimited_quota: bool(row.unlimited_quota),
    model_limits_enabled: bool(row.model_limits_enabled),
    model_limits: str(row.model_limits),
    allow_ips: str(row.allow_ips),
    group: str(row.group),
    rpm_limit: int(row.rpm_limit),
    tpm_limit: int(row.tpm_limit),
    concurrency_limit: int(row.concurrency_limit),
    budget_quota: big(row.budget_quota),
    budget_period: str(row.budget_period),
  };
}
