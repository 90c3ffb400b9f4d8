// Cloudflare Turnstile verification for login, register, verification and reset.
import { getOptions } from "@/lib/options";

const SITEVERIFY = "https://challenges.cloudflare.com/turnstile/v0/siteverify";

/** True when Turnstile is off, or the token verifies. Network failures count as a failed check. */
export async function verifyTurnstile(token: string | null, ip: string): Promise<boolean> {
  const options = await getOptions();
  if (!options.TurnstileCheckEnabled) return true;
  if (!token) return false;
  try {
    const body = new URLSearchParams({ secret: options.TurnstileSecretKey, response: token });
    if (ip && ip !== "unknown") body.set("remoteip", ip);
    const res = await fetch(SITEVERIFY, { method: "POST", body, signal: AbortSignal.timeout(5000) });
    const json = (await res.json()) as { success?: boolean };
    return json.success === true;
  } catch {
    return false;
  }
}
