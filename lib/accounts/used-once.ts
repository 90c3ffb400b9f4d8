// Proofs of identity that a third party hands the browser and that stay valid for a while: a
// Telegram widget payload (signed, good for a day) and a WeChat code (wechat-server answers it for
// three minutes, as often as asked). Each may sign in or bind once: the first use leaves a row in
// auth_flows keyed by the proof's SHA-256, and the insert itself decides, so of two requests with
// one proof, on any instance, exactly one goes on.
import { sha256Hex } from "@/lib/crypto/secret-box";
import { getDirectDb } from "@/lib/db/direct";
import { nowSeconds } from "@/lib/db/num";

/**
 * Records the first use of `proof` (of `kind`, e.g. "telegram:used") for `ttlSeconds`, after
 * which the proof has expired at its source anyway. False when it was used before.
 */
export async function claimFirstUse(kind: string, proof: string, ttlSeconds: number): Promise<boolean> {
  const db = await getDirectDb();
  const now = nowSeconds();
  await db.execute("DELETE FROM auth_flows WHERE expires_at < ?", [now]);
  const insert =
    db.kind === "mysql"
      ? "INSERT IGNORE INTO auth_flows (id, kind, browser, user_id, data, expires_at) VALUES (?, ?, '', 0, '{}', ?)"
      : "INSERT INTO auth_flows (id, kind, browser, user_id, data, expires_at) VALUES (?, ?, '', 0, '{}', ?) ON CONFLICT (id) DO NOTHING";
  // The kind is part of the key, so a handle of another flow can never collide with a proof.
  return (await db.execute(insert, [sha256Hex(`${kind}\n${proof}`), kind, now + Math.max(1, ttlSeconds)])) === 1;
}
