// An account's bindings: the e-mail address and the third-party accounts (GitHub, LinuxDO, OIDC,
// WeChat, Telegram) it can sign in with, one column of `users` each. Binding refuses an id another
// account holds (a deleted one included, so a deleted account's GitHub cannot sign up again for a
// second invitation reward); unbinding one's own refuses to take away the last way to sign in
// (lib/accounts/sign-in-methods.ts); an admin may clear a binding of a user below them, on the
// audit trail.
import { writeAudit } from "@/lib/audit/write";
import { getDirectDb } from "@/lib/db/direct";
import { int, str } from "@/lib/db/num";
import { ApiError, forbidden, notFound } from "@/lib/errors";
import { canGiveUp, SIGN_IN_WAY_MSG, type SignInWay } from "@/lib/accounts/sign-in-methods";
import { editRefusal, USER_MSG } from "@/lib/users/manage-rules";

export const BINDINGS = ["email", "github", "linuxdo", "oidc", "wechat", "telegram"] as const;
export type Binding = (typeof BINDINGS)[number];

/** The users column of each binding. */
export const BINDING_COLUMN = {
  email: "email",
  github: "github_id",
  linuxdo: "linux_do_id",
  oidc: "oidc_id",
  wechat: "wechat_id",
  telegram: "telegram_id",
} as const satisfies Record<Binding, string>;

export const BINDING_MSG = {
  unknown: "不支持的绑定类型",
  notBound: "尚未绑定该账户",
  unbound: "解绑成功",
  cleared: "已清除该用户的绑定",
} as const;

/** A binding named in a path (`/bindings/{provider}`), case-insensitive; 400 for anything else. */
export function bindingParam(raw: string | undefined): Binding {
  const name = (raw ?? "").trim().toLowerCase();
  if (!(BINDINGS as readonly string[]).includes(name)) throw new ApiError(BINDING_MSG.unknown, 400);
  return name as Binding;
}

export type ProviderColumn = Exclude<(typeof BINDING_COLUMN)[Binding], "email">;

/**
 * The account (id, and whether it is deleted) bound to any of `ids` in `column`, or null. A live
 * account is preferred over a deleted one holding the same id (bound before deletion kept it).
 */
export async function findBoundAccount(column: ProviderColumn, ids: string[]): Promise<{ id: number; deleted: boolean } | null> {
  const wanted = ids.filter(Boolean);
  if (wanted.length === 0) return null;
  const db = await getDirectDb();
  const marks = wanted.map(() => "?").join(", ");
  const [row] = await db.query(
    `SELECT id, deleted_at FROM users WHERE ${column} IN (${marks}) ORDER BY CASE WHEN deleted_at IS NULL THEN 0 ELSE 1 END, id LIMIT 1`,
    wanted,
  );
  return row ? { id: int(row.id), deleted: row.deleted_at !== null && row.deleted_at !== undefined } : null;
}

/**
 * Binds the third-party id `value` (and any legacy id of the same account) to user `userId`. Throws
 * `taken` when another account, deleted ones included, holds either id; binding again the id one
 * already holds succeeds. The columns carry no unique index (unbound is "", as in new-api's
 * schema), so two accounts binding one id at the same moment are caught after the write: each sees
 * the other, gives the id up, and both are refused.
 */
export async function bindAccount(userId: number, column: ProviderColumn, value: string, legacyId: string | undefined, taken: ApiError) {
  const holder = await findBoundAccount(column, [value, legacyId ?? ""]);
  if (holder && holder.id !== userId) throw taken;
  const db = await getDirectDb();
  const changed = await db.execute(`UPDATE users SET ${column} = ? WHERE id = ? AND deleted_at IS NULL`, [value, userId]);
  if (changed === 0) throw notFound(USER_MSG.notFound);
  const others = await db.query(`SELECT id FROM users WHERE ${column} = ? AND id <> ? LIMIT 1`, [value, userId]);
  if (others.length > 0) {
    await db.execute(`UPDATE users SET ${column} = '' WHERE id = ? AND ${column} = ?`, [userId, value]);
    throw taken;
  }
}

/** The sign-in way a binding gives (an e-mail address gives none: it names the password's account). */
const WAY: Record<Binding, SignInWay | null> = {
  email: null,
  github: "github",
  linuxdo: "linuxdo",
  oidc: "oidc",
  wechat: "wechat",
  telegram: "telegram",
};

/** `DELETE /api/user/self/bindings/{provider}`: unbinds one of the caller's own bindings. */
export async function unbindSelf(userId: number, binding: Binding): Promise<void> {
  const column = BINDING_COLUMN[binding];
  const db = await getDirectDb();
  const [row] = await db.query(`SELECT ${column} AS value FROM users WHERE id = ? AND deleted_at IS NULL`, [userId]);
  if (!row) throw notFound(USER_MSG.notFound);
  if (!str(row.value)) throw new ApiError(BINDING_MSG.notBound, 400);
  const way = WAY[binding];
  if (way && !(await canGiveUp(userId, way))) throw new ApiError(SIGN_IN_WAY_MSG.lastWay, 400);
  await db.execute(`UPDATE users SET ${column} = '' WHERE id = ?`, [userId]);
}

export type BindingActor = { id: number; username: string; role: number };

/**
 * `DELETE /api/user/{id}/bindings/{type}` (new-api's admin call): clears one binding of a user the
 * actor outranks (root may clear its own), and writes `user.binding_clear` to the audit trail.
 */
export async function clearUserBinding(actor: BindingActor, targetId: number, binding: Binding, ip: string): Promise<void> {
  const column = BINDING_COLUMN[binding];
  const db = await getDirectDb();
  const [row] = await db.query(`SELECT id, username, role, ${column} AS value FROM users WHERE id = ? AND deleted_at IS NULL`, [targetId]);
  if (!row) throw notFound(USER_MSG.notFound);
  if (editRefusal(actor, { id: int(row.id), role: int(row.role) })) throw forbidden(USER_MSG.outranked);
  await db.execute(`UPDATE users SET ${column} = '' WHERE id = ?`, [targetId]);
  await writeAudit({
    actor,
    action: "user.binding_clear",
    target_type: "user",
    target_id: targetId,
    ip,
    detail: { binding, username: str(row.username), from: str(row.value) },
  });
}
