// The WebAuthn relying party Qiao is, and the checks of a browser's answer that deserve their own
// message before @simplewebauthn/server verifies the rest. A passkey belongs to an RP ID (a host
// name) and signs for an origin; when either differs from what the browser used, the library only
// says "unexpected", and the usual cause is the operator's: the console is opened at another
// address than the ServerAddress option names. These checks say so in the refusal.
import { createHash } from "node:crypto";
import { decodeAttestationObject, isoBase64URL, parseAuthenticatorData } from "@simplewebauthn/server/helpers";
import { badRequest } from "@/lib/errors";
import { getOptions } from "@/lib/options";
import { defaultRaw } from "@/lib/options/registry";
import { componentLogger } from "@/lib/log";

const log = componentLogger("passkey");

export const WEBAUTHN_MSG = {
  malformed: "通行密钥的响应格式无效，请重试",
  originMismatch: (got: string, want: string) =>
    `通行密钥验证失败：浏览器所在地址 ${got} 与服务器地址 ${want} 不一致。请使用服务器地址访问控制台，或在系统设置中将服务器地址（ServerAddress）改为用户访问控制台的地址`,
  rpMismatch: (rpId: string) =>
    `通行密钥验证失败：该通行密钥不是为 ${rpId} 注册的。若更改过服务器地址（ServerAddress），之前注册的通行密钥需要删除后重新注册`,
  userNotVerified: "通行密钥未验证使用者身份（指纹、面容或 PIN），请在验证后重试",
  counterBack: "通行密钥的签名计数器没有增加，该凭据可能已被复制，已拒绝",
  failed: "通行密钥验证失败，请重试",
} as const;

/** Who signs: the RP ID (a host name), the origin the browser must report, and the name it shows. */
export type RelyingParty = { id: string; origin: string; name: string };

function originOf(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const origin = new URL(value).origin;
    return origin === "null" ? null : origin;
  } catch {
    return null;
  }
}

/**
 * The relying party for a ceremony started by `req`. An operator who set ServerAddress names the
 * one address passkeys work at. Until then (ServerAddress is still the built-in
 * http://localhost:PORT) the address the browser is on does: its Origin header, which a browser
 * sends with every POST, else the request's own URL.
 */
export async function relyingParty(req: Request): Promise<RelyingParty> {
  const o = await getOptions();
  const configured = o.ServerAddress !== defaultRaw("ServerAddress") ? originOf(o.ServerAddress) : null;
  const origin = configured ?? originOf(req.headers.get("origin")) ?? new URL(req.url).origin;
  return { id: new URL(origin).hostname, origin, name: o.SystemName || "Qiao" };
}

export type ClientData = { type: string; challenge: string; origin: string };

/** The browser's clientDataJSON: what it signed for (the challenge is our flow handle). */
export function readClientData(clientDataJSON: string): ClientData {
  try {
    const parsed = JSON.parse(isoBase64URL.toUTF8String(clientDataJSON)) as Record<string, unknown>;
    if (typeof parsed.type === "string" && typeof parsed.challenge === "string" && typeof parsed.origin === "string") {
      return { type: parsed.type, challenge: parsed.challenge, origin: parsed.origin };
    }
  } catch {
    // falls through to the refusal
  }
  throw badRequest(WEBAUTHN_MSG.malformed);
}

export type AuthenticatorFacts = { rpIdHash: Uint8Array; userVerified: boolean; counter: number };

function facts(authData: Uint8Array<ArrayBuffer>): AuthenticatorFacts {
  const parsed = parseAuthenticatorData(authData);
  return { rpIdHash: parsed.rpIdHash, userVerified: parsed.flags.uv, counter: parsed.counter };
}

/** The authenticator data of a registration (inside its attestation object). */
export function registrationFacts(attestationObject: string): AuthenticatorFacts {
  try {
    return facts(decodeAttestationObject(isoBase64URL.toBuffer(attestationObject)).get("authData"));
  } catch {
    throw badRequest(WEBAUTHN_MSG.malformed);
  }
}

/** The authenticator data of an assertion. */
export function assertionFacts(authenticatorData: string): AuthenticatorFacts {
  try {
    return facts(isoBase64URL.toBuffer(authenticatorData));
  } catch {
    throw badRequest(WEBAUTHN_MSG.malformed);
  }
}

/**
 * The checks with a message of their own: the origin the browser signed for, the RP ID the
 * authenticator signed for, and user verification (a passkey stands in for a password and a
 * second factor, so the authenticator must have verified its user, not only seen a touch).
 */
export function checkCeremony(rp: { id: string; origin: string }, client: ClientData, auth: AuthenticatorFacts): void {
  if (client.origin !== rp.origin) throw badRequest(WEBAUTHN_MSG.originMismatch(client.origin, rp.origin));
  const expected = createHash("sha256").update(rp.id, "utf8").digest();
  if (!expected.equals(Buffer.from(auth.rpIdHash))) throw badRequest(WEBAUTHN_MSG.rpMismatch(rp.id));
  if (!auth.userVerified) throw badRequest(WEBAUTHN_MSG.userNotVerified);
}

/**
 * A signature counter that did not grow, on a credential that counts (either value above zero),
 * means a second copy of the key signed: refused. Authenticators that sync passkeys send 0 always.
 */
export function counterWentBack(stored: number, received: number): boolean {
  return (stored > 0 || received > 0) && received <= stored;
}

/** What the library's own refusal becomes: logged for the operator, a plain message for the user. */
export function verificationFailed(error: unknown): never {
  log.warn({ err: error }, "verification failed");
  throw badRequest(WEBAUTHN_MSG.failed);
}
