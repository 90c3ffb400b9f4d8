// Passkeys (WebAuthn credentials, through @simplewebauthn/server): registered in personal
// settings, used to sign in with no username or password (discoverable credentials), to step up a
// signed-in session, and removed by their owner or reset by an admin.
//
// Every ceremony is two calls. `begin` starts a flow (lib/auth/flows.ts) bound to the browser and
// hands its handle to the authenticator as the challenge; `finish` reads the challenge back from
// the signed clientDataJSON and takes the flow, so a challenge is single-use, expires with its
// flow, and is refused from another browser. That keeps `finish`'s body exactly the credential
// JSON, as new-api's is. The flow also keeps the relying party `begin` used, so both calls check
// against one RP ID and origin.
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { isoBase64URL } from "@simplewebauthn/server/helpers";
import { ApiError, badRequest, forbidden, notFound } from "@/lib/errors";
import { BANNED_MESSAGE, type Caller } from "@/lib/auth/authenticate";
import { browserBinding, browserOf, startFlow, takeFlow } from "@/lib/auth/flows";
import { isActiveUser } from "@/lib/auth/roles";
import { enforceRateLimit } from "@/lib/auth/rate-limit";
import { markSessionVerified, type SessionUserClaims } from "@/lib/auth/sessions";
import { STEP_UP_MSG } from "@/lib/auth/step-up";
import { writeAudit } from "@/lib/audit/write";
import { sha256Hex } from "@/lib/crypto/secret-box";
import { getDb } from "@/lib/db";
import { getDirectDb, type Statement } from "@/lib/db/direct";
import { nowSeconds } from "@/lib/db/num";
import { env } from "@/lib/env";
import { requestIp } from "@/lib/net/client-ip";
import { visibleQuota } from "@/lib/billing/visible";
import { SIGN_IN_WAY_MSG, signInWays } from "@/lib/accounts/sign-in-methods";
import type { AuthenticationResponseInput, RegistrationResponseInput } from "@/lib/accounts/passkey-schemas";
import {
  assertionFacts,
  checkCeremony,
  counterWentBack,
  type RelyingParty,
  readClientData,
  registrationFacts,
  relyingParty,
  verificationFailed,
  WEBAUTHN_MSG,
} from "@/lib/accounts/webauthn";
import { editRefusal, USER_MSG } from "@/lib/users/manage-rules";
import { USER_PUBLIC_SELECT, toUserView, type UserView } from "@/lib/users/view";

export const PASSKEY_MSG = {
  flowGone: "通行密钥操作已过期或无效，请重新开始",
  unknownCredential: "未找到该通行密钥，它可能已被删除，请使用其他方式登录",
  notYours: "该通行密钥不属于当前账户",
  handleMismatch: "通行密钥的用户标识与凭据不匹配",
  userGone: "该通行密钥对应的账户不存在或已注销",
  userDisabled: BANNED_MESSAGE,
  duplicate: "该通行密钥已注册",
  tooMany: (max: number) => `每个账户最多注册 ${max} 个通行密钥`,
  none: "您尚未注册通行密钥",
  notFound: "通行密钥不存在",
  registered: "通行密钥注册成功",
  deleted: "通行密钥已删除",
  deletedAll: "通行密钥已全部删除",
  verified: "通行密钥验证成功",
  resetNone: "该用户尚未注册通行密钥",
  reset: "通行密钥已重置",
} as const;

export const PASSKEY_FLOW = {
  register: "webauthn:register",
  login: "webauthn:login",
  verify: "webauthn:verify",
} as const;

/** A challenge lives as long as its flow; the browser's own prompt gives up sooner. */
export const PASSKEY_FLOW_SECONDS = 300;
const PROMPT_TIMEOUT_MS = 120_000;
/** Bounds the exclusion and allow lists sent to the browser. */
export const MAX_PASSKEYS_PER_USER = 20;
const DEFAULT_NAME = "通行密钥";

/** One passkey as its owner sees it. */
export type PasskeyView = { id: number; name: string; created_at: number; last_used_at: number; backed_up: boolean };

/** `GET /api/user/passkey`: new-api's `enabled` and `last_used_at` (the latest use), and the list. */
export type PasskeyStatus = { enabled: boolean; last_used_at: number; passkeys: PasskeyView[] };

/** What a begin call answers (new-api's shape: the options under `publicKey`), and the flow cookie to set. */
export type CeremonyStart<T> = { options: { publicKey: T }; setCookie: string | null };

type FlowData = { rp_id: string; origin: string; name?: string };

type StoredPasskey = {
  id: number;
  user_id: number;
  credential_id: string;
  public_key: string;
  counter: bigint;
  transports: string;
};

const STORED_SELECT = { id: true, user_id: true, credential_id: true, public_key: true, counter: true, transports: true } as const;

/** Credentials are looked up by the SHA-256 of their base64url id (the column is unique). */
const credentialHash = (credentialId: string) => sha256Hex(credentialId);

const transportsOf = (stored: string) => (stored ? stored.split(",") : []);

/** The user handle an authenticator keeps beside the credential: the user id as text, as new-api has it. */
const userHandleOf = (userId: number) => new TextEncoder().encode(String(userId));

/** The flow handle as the challenge bytes, so the challenge the browser echoes is the handle itself. */
function challengeOf(handle: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(isoBase64URL.toBuffer(handle));
}

export async function listPasskeys(userId: number): Promise<PasskeyStatus> {
  const db = await getDb();
  const rows = await db.passkey.findMany({
    where: { user_id: userId },
    select: { id: true, name: true, created_at: true, last_used_at: true, backed_up: true },
    orderBy: { id: "asc" },
  });
  return {
    enabled: rows.length > 0,
    last_used_at: rows.reduce((latest, r) => Math.max(latest, r.last_used_at), 0),
    passkeys: rows,
  };
}

async function storedOf(userId: number): Promise<StoredPasskey[]> {
  const db = await getDb();
  return db.passkey.findMany({ where: { user_id: userId }, select: STORED_SELECT, orderBy: { id: "asc" } });
}

async function beginFlow(req: Request, kind: string, userId: number, data: FlowData) {
  const binding = browserBinding(req);
  const handle = await startFlow(kind, { ttlSeconds: PASSKEY_FLOW_SECONDS, browser: binding.browser, userId, data });
  return { handle, setCookie: binding.setCookie };
}

/**
 * Takes the flow the browser signed for. The flow is gone after this whatever follows, so a
 * refused answer cannot be retried with the same challenge.
 */
async function takeSignedFlow(req: Request, kind: string, clientDataJSON: string, userId: number | null) {
  const client = readClientData(clientDataJSON);
  const flow = await takeFlow(kind, client.challenge, browserOf(req));
  if (!flow || (userId !== null && flow.userId !== userId)) throw badRequest(PASSKEY_MSG.flowGone);
  const data = flow.data as FlowData;
  return { client, rp: { id: data.rp_id, origin: data.origin }, name: data.name ?? "" };
}

// ── Registration ──

/** `POST /api/user/passkey/register/begin`: options for a new resident credential named `name`. */
export async function beginPasskeyRegistration(
  req: Request,
  caller: Pick<Caller, "id" | "username" | "display_name">,
  name: string,
): Promise<CeremonyStart<Awaited<ReturnType<typeof generateRegistrationOptions>>>> {
  const existing = await storedOf(caller.id);
  if (existing.length >= MAX_PASSKEYS_PER_USER) throw badRequest(PASSKEY_MSG.tooMany(MAX_PASSKEYS_PER_USER));
  const rp = await relyingParty(req);
  const { handle, setCookie } = await beginFlow(req, PASSKEY_FLOW.register, caller.id, { rp_id: rp.id, origin: rp.origin, name });
  const publicKey = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: caller.username,
    userDisplayName: caller.display_name || caller.username,
    userID: userHandleOf(caller.id),
    challenge: challengeOf(handle),
    timeout: PROMPT_TIMEOUT_MS,
    attestationType: "none",
    // The authenticator already holding one of this account's passkeys declines to make another.
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: transportsOf(p.transports) })),
    // Resident (discoverable): sign-in names no account. User verification: a passkey replaces the
    // password and the second factor, so a touch alone is not enough.
    authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "required" },
  });
  return { options: { publicKey }, setCookie };
}

/** `POST /api/user/passkey/register/finish`: verifies the new credential and stores it. */
export async function finishPasskeyRegistration(req: Request, userId: number, response: RegistrationResponseInput): Promise<PasskeyView> {
  const { client, rp, name } = await takeSignedFlow(req, PASSKEY_FLOW.register, response.response.clientDataJSON, userId);
  checkCeremony(rp, client, registrationFacts(response.response.attestationObject));
  const verified = await verifyRegistrationResponse({
    response: response as Parameters<typeof verifyRegistrationResponse>[0]["response"],
    expectedChallenge: client.challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: true,
  }).catch(verificationFailed);
  if (!verified.verified) verificationFailed("not verified");
  const { credential, credentialBackedUp } = verified.registrationInfo;

  const db = await getDb();
  if (await db.passkey.findUnique({ where: { credential_hash: credentialHash(credential.id) }, select: { id: true } })) {
    throw badRequest(PASSKEY_MSG.duplicate);
  }
  try {
    return await db.passkey.create({
      data: {
        user_id: userId,
        credential_hash: credentialHash(credential.id),
        credential_id: credential.id,
        public_key: isoBase64URL.fromBuffer(credential.publicKey),
        counter: BigInt(credential.counter),
        transports: (response.response.transports ?? []).join(","),
        name: name || DEFAULT_NAME,
        backed_up: credentialBackedUp,
        created_at: nowSeconds(),
      },
      select: { id: true, name: true, created_at: true, last_used_at: true, backed_up: true },
    });
  } catch (error) {
    // Two finishes with one credential: the unique hash lets one in.
    if ((error as { code?: string } | null)?.code === "P2002") throw badRequest(PASSKEY_MSG.duplicate);
    throw error;
  }
}

// ── Assertions (sign-in and step-up) ──

/** Options for an assertion: any resident credential for sign-in, the caller's own for step-up. */
async function assertionOptions(rp: RelyingParty, handle: string, allow: StoredPasskey[] | null) {
  return generateAuthenticationOptions({
    rpID: rp.id,
    challenge: challengeOf(handle),
    timeout: PROMPT_TIMEOUT_MS,
    userVerification: "required",
    allowCredentials: allow?.map((p) => ({ id: p.credential_id, transports: transportsOf(p.transports) })),
  });
}

/**
 * Verifies an assertion by `stored` and moves its counter on. The counter update is conditional
 * on the counter it was checked against, so of two answers replayed at once only one counts.
 */
async function verifyAssertion(
  stored: StoredPasskey,
  rp: { id: string; origin: string },
  challenge: string,
  response: AuthenticationResponseInput,
): Promise<void> {
  const storedCounter = Number(stored.counter);
  const received = assertionFacts(response.response.authenticatorData);
  if (counterWentBack(storedCounter, received.counter)) throw badRequest(WEBAUTHN_MSG.counterBack);
  const verified = await verifyAuthenticationResponse({
    response: response as Parameters<typeof verifyAuthenticationResponse>[0]["response"],
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    credential: { id: stored.credential_id, publicKey: isoBase64URL.toBuffer(stored.public_key), counter: storedCounter },
    requireUserVerification: true,
  }).catch(verificationFailed);
  if (!verified.verified) verificationFailed("signature not verified");

  const db = await getDb();
  const { count } = await db.passkey.updateMany({
    where: { id: stored.id, counter: stored.counter },
    data: {
      counter: BigInt(verified.authenticationInfo.newCounter),
      backed_up: verified.authenticationInfo.credentialBackedUp,
      last_used_at: nowSeconds(),
    },
  });
  if (count === 0) throw badRequest(WEBAUTHN_MSG.counterBack);
}

/** The public sign-in calls are limited per client address, each as the password sign-in is. */
async function limitSignIn(req: Request, step: "begin" | "finish"): Promise<void> {
  await enforceRateLimit(`passkey:${step}:ip:${requestIp(req.headers)}`, env.CRITICAL_RATE_LIMIT, env.CRITICAL_RATE_LIMIT_DURATION);
}

/** `POST /api/user/passkey/login/begin`: a challenge for any of this site's passkeys. */
export async function beginPasskeyLogin(req: Request): Promise<CeremonyStart<Awaited<ReturnType<typeof generateAuthenticationOptions>>>> {
  await limitSignIn(req, "begin");
  const rp = await relyingParty(req);
  const { handle, setCookie } = await beginFlow(req, PASSKEY_FLOW.login, 0, { rp_id: rp.id, origin: rp.origin });
  return { options: { publicKey: await assertionOptions(rp, handle, null) }, setCookie };
}

export type PasskeySignIn = { user: UserView; claims: SessionUserClaims };

/**
 * `POST /api/user/passkey/login/finish`: the account whose passkey signed. Refuses an unknown
 * credential, a user handle that names another account, a disabled or deleted account. The
 * caller then completes the sign-in (lib/auth/sign-in.ts), where a passkey skips the TOTP code.
 */
export async function finishPasskeyLogin(req: Request, response: AuthenticationResponseInput): Promise<PasskeySignIn> {
  await limitSignIn(req, "finish");
  const { client, rp } = await takeSignedFlow(req, PASSKEY_FLOW.login, response.response.clientDataJSON, null);
  checkCeremony(rp, client, assertionFacts(response.response.authenticatorData));
  const db = await getDb();
  const stored = await db.passkey.findUnique({ where: { credential_hash: credentialHash(response.id) }, select: STORED_SELECT });
  if (!stored) throw badRequest(PASSKEY_MSG.unknownCredential);
  const handle = response.response.userHandle;
  if (handle && handle !== isoBase64URL.fromBuffer(userHandleOf(stored.user_id))) throw badRequest(PASSKEY_MSG.handleMismatch);
  await verifyAssertion(stored, rp, client.challenge, response);

  const user = await db.user.findFirst({
    where: { id: stored.user_id, deleted_at: null },
    select: { ...USER_PUBLIC_SELECT, auth_version: true },
  });
  if (!user) throw forbidden(PASSKEY_MSG.userGone);
  if (!isActiveUser(user)) throw forbidden(PASSKEY_MSG.userDisabled);
  const { auth_version, ...row } = user;
  return {
    user: toUserView(await visibleQuota(row)),
    claims: { id: user.id, username: user.username, role: user.role, auth_version },
  };
}

function sessionOf(caller: Caller): string {
  if (caller.via !== "session" || !caller.session) throw forbidden(STEP_UP_MSG.sessionOnly);
  return caller.session.jti;
}

/** `POST /api/user/passkey/verify/begin`: a challenge for one of the caller's own passkeys. */
export async function beginPasskeyVerify(
  req: Request,
  caller: Caller,
): Promise<CeremonyStart<Awaited<ReturnType<typeof generateAuthenticationOptions>>>> {
  sessionOf(caller);
  const own = await storedOf(caller.id);
  if (own.length === 0) throw badRequest(PASSKEY_MSG.none);
  const rp = await relyingParty(req);
  const { handle, setCookie } = await beginFlow(req, PASSKEY_FLOW.verify, caller.id, { rp_id: rp.id, origin: rp.origin });
  return { options: { publicKey: await assertionOptions(rp, handle, own) }, setCookie };
}

/** `POST /api/user/passkey/verify/finish`: the caller proved itself with its passkey; the session counts as stepped up. */
export async function finishPasskeyVerify(req: Request, caller: Caller, response: AuthenticationResponseInput): Promise<void> {
  const jti = sessionOf(caller);
  const { client, rp } = await takeSignedFlow(req, PASSKEY_FLOW.verify, response.response.clientDataJSON, caller.id);
  checkCeremony(rp, client, assertionFacts(response.response.authenticatorData));
  const db = await getDb();
  const stored = await db.passkey.findUnique({ where: { credential_hash: credentialHash(response.id) }, select: STORED_SELECT });
  if (!stored || stored.user_id !== caller.id) throw badRequest(PASSKEY_MSG.notYours);
  await verifyAssertion(stored, rp, client.challenge, response);
  await markSessionVerified(jti);
}

// ── Removal ──

/** Sign-in ways the account has besides its passkeys. */
async function waysBesidesPasskeys(userId: number): Promise<number> {
  return (await signInWays(userId)).filter((way) => way !== "passkey").length;
}

/**
 * `DELETE /api/user/passkey/{id}`: removes one of the caller's passkeys, unless it is the
 * account's last way to sign in. With no other way, the removal is conditional on a passkey
 * remaining, checked in the same transaction after the account's row is locked, so two removals
 * at once cannot together take the last two.
 */
export async function deletePasskey(userId: number, id: number): Promise<void> {
  const db = await getDb();
  if (!(await db.passkey.findFirst({ where: { id, user_id: userId }, select: { id: true } }))) throw notFound(PASSKEY_MSG.notFound);
  const keepOne = (await waysBesidesPasskeys(userId)) === 0;
  const statements: Statement[] = [
    { sql: "UPDATE users SET id = id WHERE id = ?", params: [userId] },
    { sql: "DELETE FROM passkeys WHERE id = ? AND user_id = ?", params: [id, userId], required: true },
  ];
  if (keepOne) {
    statements.push({
      sql: "UPDATE users SET id = id WHERE id = ? AND EXISTS (SELECT 1 FROM passkeys WHERE user_id = ?)",
      params: [userId, userId],
      required: true,
    });
  }
  const { failed } = await (await getDirectDb()).transaction(statements);
  if (failed === 1) throw notFound(PASSKEY_MSG.notFound);
  if (failed === 2) throw badRequest(SIGN_IN_WAY_MSG.lastWay);
}

/** `DELETE /api/user/passkey` (new-api's one-passkey call): removes all the caller's passkeys, unless they are its only way in. */
export async function deleteAllPasskeys(userId: number): Promise<number> {
  const db = await getDb();
  const count = await db.passkey.count({ where: { user_id: userId } });
  if (count === 0) throw badRequest(PASSKEY_MSG.none);
  if ((await waysBesidesPasskeys(userId)) === 0) throw badRequest(SIGN_IN_WAY_MSG.lastWay);
  return (await db.passkey.deleteMany({ where: { user_id: userId } })).count;
}

/**
 * `DELETE /api/user/{id}/reset_passkey`: an admin removes every passkey of a user it may manage
 * (a lost device), written to the audit trail. Not refused when the passkeys were the user's only
 * way in: the admin resets them to give another (a new password) next.
 */
export async function resetUserPasskeys(
  actor: { id: number; role: number; username: string },
  targetId: number,
  ip: string,
): Promise<number> {
  const db = await getDb();
  const target = await db.user.findUnique({ where: { id: targetId }, select: { id: true, role: true, username: true } });
  if (!target) throw notFound(USER_MSG.notFound);
  const refusal = editRefusal(actor, target);
  if (refusal) throw forbidden(refusal);
  const { count } = await db.passkey.deleteMany({ where: { user_id: targetId } });
  if (count === 0) throw new ApiError(PASSKEY_MSG.resetNone, 400);
  await writeAudit({
    actor: { id: actor.id, username: actor.username },
    action: "user.passkey_reset",
    target_type: "user",
    target_id: targetId,
    ip,
    detail: { username: target.username, removed: count },
  });
  return count;
}
