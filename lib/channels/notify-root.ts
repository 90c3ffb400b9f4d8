// The super admin hears of channels the system turns off or on by itself (inventory §2.8: the
// relay's auto-disable, channel tests, balance checks), by e-mail to root's bound address when
// SMTP is configured. In the background: a failure is logged, never the caller's.
import { getDirectDb } from "@/lib/db/direct";
import { str } from "@/lib/db/num";
import { ROLE } from "@/lib/auth/roles";
import { CHANNEL_STATUS } from "@/lib/channels/fields";
import { getOptions } from "@/lib/options";
import { componentLogger } from "@/lib/log";

const log = componentLogger("channels");

/** Mails root about channel `id` now having `status`; resolves when done (tests await it). */
export async function notifyRootOfChannel(id: number, name: string, status: number, reason: string): Promise<boolean> {
  try {
    const o = await getOptions();
    if (!o.SMTPServer) return false;
    const db = await getDirectDb();
    const [root] = await db.query("SELECT email FROM users WHERE role >= ? AND deleted_at IS NULL AND email <> '' ORDER BY id LIMIT 1", [
      ROLE.root,
    ]);
    const to = root ? str(root.email) : "";
    if (!to) return false;
    const what = status === CHANNEL_STATUS.enabled ? "已被启用" : "已被禁用";
    const subject = `通道「${name}」（#${id}）${what}`;
    const text = status === CHANNEL_STATUS.enabled ? subject : `${subject}，原因：${reason}`;
    // Loaded on the first such mail only: a relay worker that never sends one never loads it.
    const { deliverMail } = await import("@/lib/mail/transport");
    await deliverMail(o, { to, subject, html: `<p>${text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)}</p>` });
    return true;
  } catch (error) {
    log.error({ err: error, channelId: id }, "notifying root failed");
    return false;
  }
}
