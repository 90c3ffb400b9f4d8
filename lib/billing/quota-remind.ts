// The low-balance e-mail (QuotaRemindThreshold; inventory §4.7): a user whom a relay call takes
// below the threshold, or to zero, gets "您的额度即将用尽" / "您的额度已用尽" with the top-up link, at
// most once per REMIND_WINDOW_SECONDS for each of the two (claimed in the shared cache, so across
// instances when Redis is configured).
//
// The relay's settlement calls noteCharge() with what it charged: a subtraction and a comparison
// on an in-memory estimate of the balance, nothing else. Only when the estimate crosses the
// threshold (or zero) does a check start, in the background: it writes the ledger's pending usage,
// reads the balance people see (lib/billing/visible.ts), resets the estimate to it, and sends the
// mail when the balance really is below. The estimate starts from the balance the relay loaded with
// the user (lower than the truth by open leases, which near the threshold are one request's
// estimate), so it can only start a check early, never miss a crossing it saw; a reload of the user
// (a top-up invalidates it) starts a fresh estimate.
import { getDirectDb } from "@/lib/db/direct";
import { big, str } from "@/lib/db/num";
import { withVisibleQuota } from "@/lib/billing/visible";
import { quotaText } from "@/lib/billing/quota-text";
import { sharedCache } from "@/lib/cache/shared";
import { getOptions } from "@/lib/options";
import { componentLogger } from "@/lib/log";

const log = componentLogger("remind");

export const REMIND_WINDOW_SECONDS = 24 * 3600;

type RemindUser = { id: number; quotaHint: bigint };
type Flushable = { flush(): Promise<void> };

const estimates = new WeakMap<RemindUser, bigint>();
const checking = new Set<number>();

/** The relay's hook after a settle: cheap; starts a background check only on a crossing. */
export function noteCharge(user: RemindUser, charged: bigint, threshold: number, ledger: Flushable): void {
  if (threshold <= 0 || charged <= 0n) return;
  const before = estimates.get(user) ?? user.quotaHint;
  const after = before - charged;
  estimates.set(user, after);
  const limit = BigInt(threshold);
  if ((before >= limit && after < limit) || (before > 0n && after <= 0n)) void checkBalance(user, ledger);
}

/** The check a crossing starts; resolves when done (tests await it). Never throws. */
export async function checkBalance(user: RemindUser, ledger: Flushable): Promise<"sent" | "skipped"> {
  if (checking.has(user.id)) return "skipped";
  checking.add(user.id);
  try {
    await ledger.flush();
    const db = await getDirectDb();
    const [row] = await db.query("SELECT id, email, quota FROM users WHERE id = ? AND deleted_at IS NULL", [user.id]);
    if (!row) return "skipped";
    const [visible] = await withVisibleQuota([{ id: user.id, quota: big(row.quota) }], db);
    const balance = visible!.quota;
    estimates.set(user, balance);
    const o = await getOptions();
    const email = str(row.email);
    if (!email || o.QuotaRemindThreshold <= 0 || balance >= BigInt(o.QuotaRemindThreshold) || !o.SMTPServer) return "skipped";
    const exhausted = balance <= 0n;
    const key = `remind:${exhausted ? "out" : "low"}:${user.id}`;
    if (!(await sharedCache().set(key, "1", REMIND_WINDOW_SECONDS, true))) return "skipped";
    const link = `${o.ServerAddress.replace(/\/+$/, "")}/topup`;
    const state = exhausted ? "已用尽" : "即将用尽";
    try {
      // Loaded on the first reminder only: a relay worker that never sends one never loads it.
      const { deliverMail } = await import("@/lib/mail/transport");
      await deliverMail(o, {
        to: email,
        subject: `您的额度${state}`,
        html: `<p>您好，你的额度${state}，当前剩余额度为 ${quotaText(balance, o)}，为了不影响您的使用，请及时充值。<br/>充值链接：<a href="${link}">${link}</a></p>`,
      });
      return "sent";
    } catch (error) {
      // Not sent: the next crossing may try again.
      await sharedCache().del(key);
      throw error;
    }
  } catch (error) {
    log.error({ err: error, userId: user.id }, "quota reminder failed");
    return "skipped";
  } finally {
    checking.delete(user.id);
  }
}
