// Cloudflare Turnstile verification for every sign-in path (/api/user/login, next-auth's
// credentials), register, verification and reset: one check, one message.
import { ApiError } from "@/lib/errors";
import { env } from "@/lib/env";
import { getOptions } from "@/lib/options";

export const TURNSTILE_FAILED = "Turnstile 校验失败，请刷新重试！";
const VERIFY_TIMEOUT_MS = 5000;

/** True when the token verifies. Network failures count as a failed check. */
async function verifyToken(secret: string, token: string, ip: string): Promise<boolean> {
  try {
    const body = new URLSearchParams({ secret, response: token });
    if (ip && ip !== "unknown") body.set("remoteip", ip);
    const res = await fetch(env.TURNSTILE_VERIFY_URL, { method: "POST", body, signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS) });
    const json = (await res.json()) as { success?: boolean };
    return json.success === true;
  } catch {
    return false;
  }
}

/** Throws the 400 envelope error when Turnstile is on and `token` is missing or does not verify. */
export async function requireTurnstile(token: string | null | undefined, ip: string): Promise<void> {
  const options = await getOptions();
  if (!options.TurnstileCheckEnabled) return;
  if (!token || !(await verifyToken(options.TurnstileSecretKey, token, ip))) throw new ApiError(TURNSTILE_FAILED, 400);
}
