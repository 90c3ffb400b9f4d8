// The audit trail's one writer (audit_logs): what an admin or root did, to what, from where.
// Callers pass the acting user, an action of AUDIT_ACTIONS and what changed; secrets are masked by
// the caller with maskSecret before they reach `detail`, and nothing secret (a password, a key, a
// redemption code) is ever put there unmasked. The console's admin functions (lib/users/admin.ts,
// lib/channels, lib/redemptions, lib/options, lib/logs) take an AuditBy from their route and write
// their rows after the change is made.
import type { AuditAction } from "@/lib/audit/actions";
import { getDirectDb, type Statement } from "@/lib/db/direct";
import { nowSeconds } from "@/lib/db/num";
import { requestIp } from "@/lib/net/client-ip";

export type AuditActor = { id: number; username: string };

/** Who acts and from which client address: what a route hands to a function that writes audit rows. */
export type AuditBy = { actor: AuditActor; ip: string };

export type AuditEntry = {
  actor: AuditActor;
  action: AuditAction;
  target_type?: string;
  target_id?: string | number;
  ip?: string;
  /** What changed, e.g. `{ quota: { from, to } }`; stored as JSON. */
  detail?: Record<string, unknown>;
};

/** The AuditBy of a route's caller and request. */
export function auditBy(caller: AuditActor, req: Request): AuditBy {
  return { actor: { id: caller.id, username: caller.username }, ip: requestIp(req.headers) };
}

const INSERT =
  "INSERT INTO audit_logs (created_at, actor_id, actor_name, action, target_type, target_id, ip, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

function insertOf(entry: AuditEntry, now: number): Statement {
  return {
    sql: INSERT,
    params: [
      now,
      entry.actor.id,
      entry.actor.username,
      entry.action,
      entry.target_type ?? "",
      entry.target_id === undefined ? "" : String(entry.target_id),
      entry.ip ?? "",
      entry.detail ? JSON.stringify(entry.detail, (_k, v) => (typeof v === "bigint" ? v.toString() : v)) : "",
    ],
  };
}

/** Writes one audit row. */
export async function writeAudit(entry: AuditEntry): Promise<void> {
  await writeAudits([entry]);
}

/** Writes several rows in one transaction (one per channel of a batch), all with the same time. */
export async function writeAudits(entries: readonly AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const now = nowSeconds();
  const db = await getDirectDb();
  await db.transaction(entries.map((entry) => insertOf(entry, now)));
}

/** A secret as the audit trail shows it: its length and nothing of its content. */
export function maskSecret(value: string | null | undefined): string {
  if (!value) return "";
  return `****（${value.length} 个字符）`;
}
