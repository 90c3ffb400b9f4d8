// The audit trail's one writer (audit_logs): what an admin or root did, to what, from where.
// Callers pass the acting user, a dotted action name (AUDIT_ACTIONS) and what changed; secrets
// are masked by the caller with maskSecret before they reach `detail`.
import { getDirectDb } from "@/lib/db/direct";
import { nowSeconds } from "@/lib/db/num";

export type AuditActor = { id: number; username: string };

export type AuditEntry = {
  actor: AuditActor;
  action: string;
  target_type?: string;
  target_id?: string | number;
  ip?: string;
  /** What changed, e.g. `{ from, to }`; stored as JSON. */
  detail?: Record<string, unknown>;
};

/** Writes one audit row. */
export async function writeAudit(entry: AuditEntry): Promise<void> {
  const db = await getDirectDb();
  await db.execute(
    "INSERT INTO audit_logs (created_at, actor_id, actor_name, action, target_type, target_id, ip, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    [
      nowSeconds(),
      entry.actor.id,
      entry.actor.username,
      entry.action,
      entry.target_type ?? "",
      entry.target_id === undefined ? "" : String(entry.target_id),
      entry.ip ?? "",
      entry.detail ? JSON.stringify(entry.detail, (_k, v) => (typeof v === "bigint" ? v.toString() : v)) : "",
    ],
  );
}

/** A secret as the audit trail shows it: its length and nothing of its content. */
export function maskSecret(value: string | null | undefined): string {
  if (!value) return "";
  return `****（${value.length} 个字符）`;
}
