// Passkeys in the browser (WebAuthn through @simplewebauthn/browser). Placeholder until the
// passkey flows land: no browser is told it can use one.

/** Whether this browser can use a passkey here. */
export function passkeySupported(): boolean {
  return false;
}

/**
 * Step-up with a passkey: runs POST /api/user/passkey/verify/begin, the browser ceremony, and
 * /api/user/passkey/verify/finish, which marks the session as just verified. True on success.
 */
export async function verifyWithPasskey(): Promise<boolean> {
  return false;
}
