// The balance people see. The relay's ledger takes quota from a user (and a limited token) in
// leases, `quota_holds` rows, so the stored `quota` and `remain_quota` are lower than the truth by
// the unused part of every open hold. Every place that shows a balance goes through these
// functions, which add that part back: a balance moves by what was spent plus what is in flight
// right now (each hold's `reserved`, written by its ledger at every flush), never by a lease.
import { type DirectDb, getDirectDb } from "@/lib/db/direct";
import { big, int } from "@/lib/db/num";

type Owner = "user_id" | "token_id";

/** Per owner, Σ (amount − consumed − reserved) over its open holds. One grouped query. */
async function unusedHeld(by: Owner, ids: number[], db?: DirectDb): Promise<Map<number, bigint>> {
  const unused = new Map<number, bigint>();
  const wanted = [...new Set(ids.filter((id) => id > 0))];
  if (!wanted.length) return unused;
  db ??= await getDirectDb();
  const groups = await db.query(
    `SELECT ${by} AS owner, SUM(amount) AS amount, SUM(consumed) AS consumed, SUM(reserved) AS reserved FROM quota_holds WHERE state = 0 AND ${by} IN (${wanted.map(() => "?").join(", ")}) GROUP BY ${by}`,
    wanted,
  );
  for (const g of groups) unused.set(int(g.owner), big(g.amount) - big(g.consumed) - big(g.reserved));
  return unused;
}

/** Users with `quota` as shown: the stored balance plus the unused part of their open holds. */
export async function withVisibleQuota<T extends { id: number; quota: bigint }>(rows: T[], db?: DirectDb): Promise<T[]> {
  const unused = await unusedHeld(
    "user_id",
    rows.map((r) => r.id),
    db,
  );
  return rows.map((r) => (unused.has(r.id) ? { ...r, quota: r.quota + unused.get(r.id)! } : r));
}

/** Tokens with `remain_quota` as shown (a limited token's holds added back; unlimited tokens hold nothing). */
export async function withVisibleRemain<T extends { id: number; remain_quota: bigint }>(rows: T[], db?: DirectDb): Promise<T[]> {
  const unused = await unusedHeld(
    "token_id",
    rows.map((r) => r.id),
    db,
  );
  return rows.map((r) => (unused.has(r.id) ? { ...r, remain_quota: r.remain_quota + unused.get(r.id)! } : r));
}

export async function visibleQuota<T extends { id: number; quota: bigint }>(row: T): Promise<T> {
  return (await withVisibleQuota([row]))[0]!;
}

export async function visibleRemain<T extends { id: number; remain_quota: bigint }>(row: T): Promise<T> {
  return (await withVisibleRemain([row]))[0]!;
}

/**
 * A token's remaining quota read fresh: `shown`, as the token list shows it (withVisibleRemain),
 * and `left`, the same with requests in flight counted as unspent. `left` only ever falls (usage
 * lowers it; leases and refunds move quota between the token and its holds without changing it),
 * until someone edits the token; so once it is ≤ 0 the token stays spent, and the relay may
 * remember that. Null for a token that is gone.
 */
export async function tokenRemainNow(id: number, db?: DirectDb): Promise<{ shown: bigint; left: bigint } | null> {
  db ??= await getDirectDb();
  const [token] = await db.query("SELECT remain_quota FROM tokens WHERE id = ?", [id]);
  if (!token) return null;
  const [held] = await db.query(
    "SELECT SUM(amount) AS amount, SUM(consumed) AS consumed, SUM(reserved) AS reserved FROM quota_holds WHERE state = 0 AND token_id = ?",
    [id],
  );
  const remain = big(token.remain_quota);
  const left = remain + big(held?.amount ?? 0) - big(held?.consumed ?? 0);
  return { shown: left - big(held?.reserved ?? 0), left };
}
