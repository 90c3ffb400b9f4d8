// Two-factor sign-in (two_factors): a TOTP secret (RFC 6238 with what every authenticator app
// reads from a QR code: 30-second steps, 6 digits, SHA-1) and ten single-use backup codes. The
// secret is sealed with CRYPTO_SECRET; backup codes are kept only as keyed hashes.
//
// Every code is good once. A TOTP code is accepted only for a time step later than the last one
// accepted, and the step moves forward by a conditional UPDATE (`last_step < ?`), so of two
// requests carrying one code, on one instance or two, exactly one passes. A backup code leaves
// the stored list by a compare-and-swap of the whole list, with the same effect.
//
// Wrong codes count per account and per client address like wrong passwords (lib/users/auth.ts),
// in their own windows: past the limit every code is refused, a right one too, until the window
// moves on.
import { createHash, createHmac, randomInt } from "node:crypto";
import { generateSecret, generateURI, verify } from "otplib";
import QRCode from "qrcode";
import { z } from "zod";
import type { Caller } from "@/lib/auth/authenticate";
import { rateLimitStore } from "@/lib/auth/rate-limit";
import { canManageUser } from "@/lib/auth/roles";
import { endOtherSessions, markSessionVerified } from "@/lib/auth/sessions";
import { requireStepUp, STEP_UP_MSG } from "@/lib/auth/step-up";
import { writeAudit } from "@/lib/audit/write";
import { open, seal } from "@/lib/crypto/secret-box";
import { getDirectDb } from "@/lib/db/direct";
import { bool, int, nowSeconds, str } from "@/lib/db/num";
import { cryptoSecret, env } from "@/lib/env";
import { ApiError, forbidden, notFound } from "@/lib/errors";
import { getOptions } from "@/lib/options";
import { ADDRESS_FAILURE_FACTOR } from "@/lib/users/auth";

export const TWO_FACTOR_MSG = {
  alreadyEnabled: "两步验证已启用，如需重新设置请先停用",
  notSetUp: "请先完成两步验证的初始化设置",
  notEnabled: "该账户未启用两步验证",
  wrongCode: "验证码或备用码错误，请重试",
  wrongTotp: "验证码错误，请输入身份验证器应用中当前显示的 6 位验证码",
  tooMany: "两步验证码错误次数过多，请稍后再试",
  setupStarted: "请使用身份验证器应用扫描二维码，然后输入 6 位验证码完成设置",
  enabled: "两步验证启用成功",
  disabled: "两步验证已停用",
  regenerated: "备用码已重新生成",
  reset: "已强制停用该用户的两步验证",
  outranked: "无权操作同级或更高级用户的两步验证设置",
  userNotFound: "用户不存在",
} as const;

/** The body of the calls that take a code: `{code}`, a TOTP code or (where allowed) a backup code. */
export const codeSchema = z.object({ code: z.string().trim().min(1, "请输入验证码").max(32, "验证码过长") });

/** How many backup codes a setup or a regeneration hands out. */
export const BACKUP_CODE_COUNT = 10;

/** One step back or ahead of the server's clock (RFC 6238 §5.2 allows for drift and typing time). */
const TOLERANCE_SECONDS = 30;

// 32 letters and digits without 0/O and 1/I, which read alike: 8 of them are 40 random bits.
const BACKUP_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const BACKUP_LENGTH = 8;

/** A new backup code, shown as XXXX-XXXX. */
function newBackupCode(): string {
  let code = "";
  for (let i = 0; i < BACKUP_LENGTH; i++) code += BACKUP_ALPHABET[randomInt(BACKUP_ALPHABET.length)];
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** A typed backup code as stored: capitals, without the dash or spaces; null when it cannot be one. */
function normalizeBackupCode(typed: string): string | null {
  const code = typed.toUpperCase().replace(/[\s-]/g, "");
  return code.length === BACKUP_LENGTH && /^[A-Z0-9]+$/.test(code) ? code : null;
}

// Keyed, not a bare SHA-256: 40 bits are few enough to try all of them against a copied database,
// not without the key.
let backupKey: { secret: string; key: Buffer } | undefined;
function hashNormalized(normalized: string): string {
  const secret = cryptoSecret();
  if (backupKey?.secret !== secret) backupKey = { secret, key: createHash("sha256").update(`qiao-backup-code:${secret}`).digest() };
  return createHmac("sha256", backupKey.key).update(normalized).digest("hex");
}

function newBackupCodes(): { codes: string[]; stored: string } {
  const codes = Array.from({ length: BACKUP_CODE_COUNT }, newBackupCode);
  return { codes, stored: storedBackupCodes(codes) };
}

/** The backup_codes column for these codes (also how tests seed a row on another database). */
export function storedBackupCodes(codes: string[]): string {
  return JSON.stringify(codes.map((c) => hashNormalized(normalizeBackupCode(c) ?? c)));
}

function parseHashes(stored: string): string[] {
  try {
    const list = JSON.parse(stored);
    return Array.isArray(list) ? list.filter((h): h is string => typeof h === "string") : [];
  } catch {
    return [];
  }
}

// ---- Wrong codes ----------------------------------------------------------------------------

const accountFailureKey = (userId: number) => `2fa:fail:user:${userId}`;
const addressFailureKey = (ip: string) => `2fa:fail:ip:${ip}`;

async function failureCounts(userId: number, ip: string): Promise<{ account: number; address: number }> {
  const store = rateLimitStore();
  const window = env.CRITICAL_RATE_LIMIT_DURATION;
  const [account, address] = await Promise.all([
    store.count(accountFailureKey(userId), window),
    ip ? store.count(addressFailureKey(ip), window) : 0,
  ]);
  return { account, address };
}

async function refuseIfCodeLocked(userId: number, ip: string): Promise<void> {
  const { account, address } = await failureCounts(userId, ip);
  if (account >= env.LOGIN_FAILURE_LIMIT || address >= env.LOGIN_FAILURE_LIMIT * ADDRESS_FAILURE_FACTOR) {
    throw new ApiError(TWO_FACTOR_MSG.tooMany, 429);
  }
}

async function noteCodeFailure(userId: number, ip: string): Promise<void> {
  const store = rateLimitStore();
  const window = env.CRITICAL_RATE_LIMIT_DURATION;
  await Promise.all([
    store.hit(accountFailureKey(userId), Number.MAX_SAFE_INTEGER, window),
    store.hit(addressFailureKey(ip), Number.MAX_SAFE_INTEGER, window),
  ]);
}

// ---- Checking a code ------------------------------------------------------------------------

type TwoFactorRow = { secret: string; enabled: boolean; backupCodes: string[]; lastStep: number };

async function readRow(userId: number): Promise<TwoFactorRow | null> {
  const db = await getDirectDb();
  const [row] = await db.query("SELECT secret_enc, enabled, backup_codes, last_step FROM two_factors WHERE user_id = ?", [userId]);
  if (!row) return null;
  return {
    secret: str(row.secret_enc),
    enabled: bool(row.enabled),
    backupCodes: parseHashes(str(row.backup_codes)),
    lastStep: int(row.last_step),
  };
}

/** Accepts a TOTP code once: its step must be later than the last accepted one, and this request must be the one that moves it. */
async function acceptTotpCode(userId: number, row: TwoFactorRow, token: string): Promise<boolean> {
  let result: Awaited<ReturnType<typeof verify>>;
  try {
    result = await verify({ secret: open(row.secret), token, epochTolerance: TOLERANCE_SECONDS, afterTimeStep: row.lastStep });
  } catch {
    return false;
  }
  // A TOTP result names the step it matched (an HOTP one would not).
  if (!result.valid || !("timeStep" in result)) return false;
  const db = await getDirectDb();
  const moved = await db.execute("UPDATE two_factors SET last_step = ? WHERE user_id = ? AND last_step < ?", [
    result.timeStep,
    userId,
    result.timeStep,
  ]);
  return moved === 1;
}

/** Takes a backup code out of the stored list; false when it is not (or no longer) in it. */
async function takeBackupCode(userId: number, typed: string, listed: string[]): Promise<boolean> {
  const normalized = normalizeBackupCode(typed);
  if (!normalized) return false;
  const hash = hashNormalized(normalized);
  const db = await getDirectDb();
  let current = listed;
  // Another code of the account may be used meanwhile, changing the list under us: read it again.
  for (let attempt = 0; attempt < 5; attempt++) {
    if (!current.includes(hash)) return false;
    const next = JSON.stringify(current.filter((h) => h !== hash));
    const swapped = await db.execute("UPDATE two_factors SET backup_codes = ? WHERE user_id = ? AND backup_codes = ?", [
      next,
      userId,
      JSON.stringify(current),
    ]);
    if (swapped === 1) return true;
    const again = await readRow(userId);
    if (!again?.enabled) return false;
    current = again.backupCodes;
  }
  return false;
}

type CodeCheck = {
  /** Whether the account's two-factor must be on (sign-in, step-up, disable) or still pending (enable). */
  enabled: boolean;
  /** Whether a backup code may stand in for a TOTP code (enabling proves the app, so it may not). */
  backup: boolean;
};

/**
 * Checks a code for the account: refuses while it (or the address) has too many wrong codes,
 * counts a wrong one, and uses a right one up. Throws the envelope error on refusal.
 */
async function checkCode(userId: number, typed: string, ip: string, check: CodeCheck): Promise<"totp" | "backup"> {
  const row = await readRow(userId);
  if (!row || row.enabled !== check.enabled) {
    throw new ApiError(check.enabled ? TWO_FACTOR_MSG.notEnabled : row ? TWO_FACTOR_MSG.alreadyEnabled : TWO_FACTOR_MSG.notSetUp, 400);
  }
  await refuseIfCodeLocked(userId, ip);
  const code = typed.replace(/\s/g, "");
  let used: "totp" | "backup" | null = null;
  if (/^\d{6}$/.test(code)) {
    if (await acceptTotpCode(userId, row, code)) used = "totp";
  } else if (check.backup && (await takeBackupCode(userId, code, row.backupCodes))) {
    used = "backup";
  }
  if (!used) {
    await noteCodeFailure(userId, ip);
    throw new ApiError(check.backup ? TWO_FACTOR_MSG.wrongCode : TWO_FACTOR_MSG.wrongTotp, 400);
  }
  // A right code clears the account's count, never the address's (as after a right password).
  await rateLimitStore().reset(accountFailureKey(userId));
  return used;
}

/** Checks a TOTP or backup code of an account with two-factor on (sign-in, step-up). */
export function verifySecondFactor(userId: number, code: string, ip: string): Promise<"totp" | "backup"> {
  return checkCode(userId, code, ip, { enabled: true, backup: true });
}

// ---- The account's own settings ------------------------------------------------------------

export type TwoFactorStatus = { enabled: boolean; locked: boolean; backup_codes_remaining: number };

/** GET /api/user/2fa/status, new-api's shape. */
export async function twoFactorStatus(userId: number): Promise<TwoFactorStatus> {
  // `locked`: the account's own count (an address's says nothing about the account).
  const [row, counts] = await Promise.all([readRow(userId), failureCounts(userId, "")]);
  return {
    enabled: !!row?.enabled,
    locked: counts.account >= env.LOGIN_FAILURE_LIMIT,
    backup_codes_remaining: row?.enabled ? row.backupCodes.length : 0,
  };
}

/** A session's caller: the 2FA changes end the account's other sessions, so they need the caller's own. */
function sessionOf(caller: Caller): string {
  if (caller.via !== "session" || !caller.session) throw forbidden(STEP_UP_MSG.sessionOnly);
  return caller.session.jti;
}

export type TwoFactorSetup = {
  secret: string;
  /** The otpauth:// URI the QR code holds (new-api's `qr_code_data`). */
  qr_code_data: string;
  /** The QR code as a PNG data URL. */
  qr_code_image: string;
  backup_codes: string[];
};

/**
 * POST /api/user/2fa/setup: a new secret and backup codes, stored but not yet on (a setup begun
 * before is replaced). Needs step-up: it starts what enabling finishes.
 */
export async function startTwoFactorSetup(caller: Caller): Promise<TwoFactorSetup> {
  sessionOf(caller);
  requireStepUp(caller);
  if ((await readRow(caller.id))?.enabled) throw new ApiError(TWO_FACTOR_MSG.alreadyEnabled, 400);
  const secret = generateSecret();
  const { codes, stored } = newBackupCodes();
  const { SystemName } = await getOptions();
  const uri = generateURI({ issuer: String(SystemName || "Qiao"), label: caller.username, secret });
  const image = await QRCode.toDataURL(uri, { errorCorrectionLevel: "M", margin: 1, width: 240 });
  const db = await getDirectDb();
  try {
    await db.transaction([
      { sql: "DELETE FROM two_factors WHERE user_id = ? AND enabled = ?", params: [caller.id, false] },
      {
        sql: "INSERT INTO two_factors (user_id, secret_enc, enabled, backup_codes, last_step, created_at, enabled_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        params: [caller.id, seal(secret), false, stored, 0, nowSeconds(), 0],
      },
    ]);
  } catch (error) {
    // The insert collides with a row switched on meanwhile (a pending one was deleted first), or
    // with another setup of the same account just now.
    if ((await readRow(caller.id))?.enabled) throw new ApiError(TWO_FACTOR_MSG.alreadyEnabled, 400);
    throw error;
  }
  return { secret, qr_code_data: uri, qr_code_image: image, backup_codes: codes };
}

/** POST /api/user/2fa/enable: a TOTP code from the app proves it holds the secret; the other sessions end. */
export async function enableTwoFactor(caller: Caller, code: string, ip: string): Promise<void> {
  const jti = sessionOf(caller);
  requireStepUp(caller);
  await checkCode(caller.id, code, ip, { enabled: false, backup: false });
  const db = await getDirectDb();
  const switched = await db.execute("UPDATE two_factors SET enabled = ?, enabled_at = ? WHERE user_id = ? AND enabled = ?", [
    true,
    nowSeconds(),
    caller.id,
    false,
  ]);
  if (switched !== 1) throw new ApiError(TWO_FACTOR_MSG.alreadyEnabled, 400);
  await endOtherSessions(caller.id, jti);
}

// Disabling and regenerating carry a code of the account's second factor, which is itself a
// step-up proof (the "2fa" method of POST /api/verify): they do not ask for a second one, which
// would have to wait for the next 30-second code since a code is good once.

/** POST /api/user/2fa/disable: a TOTP or backup code; the secret and codes are deleted, the other sessions end. */
export async function disableTwoFactor(caller: Caller, code: string, ip: string): Promise<void> {
  const jti = sessionOf(caller);
  await checkCode(caller.id, code, ip, { enabled: true, backup: true });
  await markSessionVerified(jti);
  const db = await getDirectDb();
  await db.execute("DELETE FROM two_factors WHERE user_id = ?", [caller.id]);
  await endOtherSessions(caller.id, jti);
}

/** POST /api/user/2fa/backup_codes: ten new codes replace the old ones; the other sessions end. */
export async function regenerateBackupCodes(caller: Caller, code: string, ip: string): Promise<{ backup_codes: string[] }> {
  const jti = sessionOf(caller);
  await checkCode(caller.id, code, ip, { enabled: true, backup: true });
  await markSessionVerified(jti);
  const { codes, stored } = newBackupCodes();
  const db = await getDirectDb();
  const replaced = await db.execute("UPDATE two_factors SET backup_codes = ? WHERE user_id = ? AND enabled = ?", [stored, caller.id, true]);
  if (replaced !== 1) throw new ApiError(TWO_FACTOR_MSG.notEnabled, 400);
  await endOtherSessions(caller.id, jti);
  return { backup_codes: codes };
}

// ---- Administration -------------------------------------------------------------------------

/** GET /api/user/2fa/stats, new-api's shape. */
export async function twoFactorStats(): Promise<{ total_users: number; enabled_users: number; enabled_rate: string }> {
  const db = await getDirectDb();
  const [[users], [enabled]] = await Promise.all([
    db.query("SELECT COUNT(*) AS n FROM users WHERE deleted_at IS NULL"),
    db.query("SELECT COUNT(*) AS n FROM two_factors t JOIN users u ON u.id = t.user_id WHERE t.enabled = ? AND u.deleted_at IS NULL", [
      true,
    ]),
  ]);
  const total = int(users?.n);
  const on = int(enabled?.n);
  return { total_users: total, enabled_users: on, enabled_rate: `${(total > 0 ? (on / total) * 100 : 0).toFixed(1)}%` };
}

/**
 * DELETE /api/user/{id}/2fa (root): switches a user's two-factor off for good (a lost phone and
 * no backup codes left), ends all of that user's sessions and writes the audit trail.
 */
export async function resetTwoFactor(actor: Caller, userId: number, ip: string): Promise<void> {
  const db = await getDirectDb();
  const [target] = await db.query("SELECT id, username, role FROM users WHERE id = ? AND deleted_at IS NULL", [userId]);
  if (!target) throw notFound(TWO_FACTOR_MSG.userNotFound);
  if (!canManageUser(actor, { id: int(target.id), role: int(target.role) })) throw forbidden(TWO_FACTOR_MSG.outranked);
  const removed = await db.execute("DELETE FROM two_factors WHERE user_id = ? AND enabled = ?", [userId, true]);
  if (removed !== 1) throw new ApiError(TWO_FACTOR_MSG.notEnabled, 400);
  await endOtherSessions(userId, null);
  await writeAudit({
    actor: { id: actor.id, username: actor.username },
    action: "user.2fa_reset",
    target_type: "user",
    target_id: userId,
    ip,
    detail: { username: str(target.username) },
  });
}
