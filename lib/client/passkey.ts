// Passkeys in the browser (WebAuthn through @simplewebauthn/browser): each ceremony is the
// server's begin call, the browser's prompt, and the server's finish call with what the
// authenticator signed. A failure is told in a toast (the api client's, or the prompt's own below)
// and answered as null or false, so callers only act on success. Browser-only.
import { browserSupportsWebAuthn, startAuthentication, startRegistration, WebAuthnError } from "@simplewebauthn/browser";
import type { PasskeyView } from "@/lib/accounts/passkeys";
import { api } from "@/lib/client/api";
import { showError, showInfo } from "@/lib/client/notify";
import type { StoredUser } from "@/lib/client/types";

/** What the browser's prompt can end in, as the console says it. */
export const PASSKEY_PROMPT_MSG = {
  cancelled: "已取消，或等待通行密钥超时",
  alreadyRegistered: "此设备上已有该账户的通行密钥",
  invalidDomain: "当前地址不能使用通行密钥：需要 HTTPS 或 localhost 的域名地址，不能是 IP 地址",
  wrongRpId: "当前地址与系统设置中的服务器地址（ServerAddress）不一致，无法使用通行密钥。请通过服务器地址访问控制台",
  unsupported: "此设备或浏览器不支持通行密钥（需要支持可发现凭据和身份验证）",
  failed: (detail: string) => `通行密钥操作失败：${detail}`,
} as const;

type Begun<T> = { options: { publicKey: T } };
type CreationOptions = Parameters<typeof startRegistration>[0]["optionsJSON"];
type RequestOptions = Parameters<typeof startAuthentication>[0]["optionsJSON"];

/** Whether this browser can use a passkey here. */
export function passkeySupported(): boolean {
  return typeof window !== "undefined" && browserSupportsWebAuthn();
}

function promptFailed(error: unknown): null {
  const code = error instanceof WebAuthnError ? error.code : "";
  const name = (error as Error | null)?.name ?? "";
  if (name === "NotAllowedError" || code === "ERROR_CEREMONY_ABORTED") showInfo(PASSKEY_PROMPT_MSG.cancelled);
  else if (code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED") showError(PASSKEY_PROMPT_MSG.alreadyRegistered);
  else if (code === "ERROR_INVALID_DOMAIN") showError(PASSKEY_PROMPT_MSG.invalidDomain);
  else if (code === "ERROR_INVALID_RP_ID") showError(PASSKEY_PROMPT_MSG.wrongRpId);
  else if (code.startsWith("ERROR_AUTHENTICATOR_MISSING")) showError(PASSKEY_PROMPT_MSG.unsupported);
  else showError(PASSKEY_PROMPT_MSG.failed((error as Error | null)?.message ?? String(error)));
  return null;
}

/** The browser's prompt; null (after a toast) when it did not end in a credential. */
async function prompt<T>(run: () => Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch (error) {
    return promptFailed(error);
  }
}

/** Registers a new passkey named `name` for the signed-in user; the stored passkey, or null. */
export async function registerPasskey(name: string): Promise<PasskeyView | null> {
  const begun = await api<Begun<CreationOptions>>("POST", "/api/user/passkey/register/begin", { name });
  if (!begun.success) return null;
  const credential = await prompt(() => startRegistration({ optionsJSON: begun.data.options.publicKey }));
  if (!credential) return null;
  const finished = await api<PasskeyView>("POST", "/api/user/passkey/register/finish", credential);
  return finished.success ? finished.data : null;
}

/** Signs in with any passkey of this site (no username); the signed-in user, or null. */
export async function signInWithPasskey(): Promise<StoredUser | null> {
  const begun = await api<Begun<RequestOptions>>("POST", "/api/user/passkey/login/begin", undefined, { redirectOn401: false });
  if (!begun.success) return null;
  const assertion = await prompt(() => startAuthentication({ optionsJSON: begun.data.options.publicKey }));
  if (!assertion) return null;
  const finished = await api<StoredUser>("POST", "/api/user/passkey/login/finish", assertion, { redirectOn401: false });
  return finished.success ? finished.data : null;
}

/**
 * Step-up with a passkey: runs POST /api/user/passkey/verify/begin, the browser ceremony, and
 * /api/user/passkey/verify/finish, which marks the session as just verified. True on success.
 */
export async function verifyWithPasskey(): Promise<boolean> {
  const begun = await api<Begun<RequestOptions>>("POST", "/api/user/passkey/verify/begin");
  if (!begun.success) return false;
  const assertion = await prompt(() => startAuthentication({ optionsJSON: begun.data.options.publicKey }));
  if (!assertion) return false;
  return (await api("POST", "/api/user/passkey/verify/finish", assertion)).success;
}
