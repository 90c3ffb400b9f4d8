// Short-lived e-mail verification codes (register, bind, reset). Codes live in memory here;
// sending them by e-mail arrives with the SMTP settings.
import { timingSafeEqual } from "node:crypto";

type Entry = { code: string; expires: number };
const g = globalThis as { __qiaoVerificationCodes?: Map<string, Entry> };
const codes = (g.__qiaoVerificationCodes ??= new Map());

export const VERIFICATION_TTL_SECONDS = 600;

export function storeVerificationCode(purpose: string, email: string, code: string, ttlSeconds = VERIFICATION_TTL_SECONDS) {
  codes.set(`${purpose}:${email.toLowerCase()}`, { code, expires: Date.now() + ttlSeconds * 1000 });
}

/** True once for a matching, unexpired code; the code is consumed. */
export async function checkVerificationCode(purpose: string, email: string, code: string): Promise<boolean> {
  const key = `${purpose}:${email.toLowerCase()}`;
  const entry = codes.get(key);
  if (!entry || entry.expires < Date.now()) return false;
  const a = Buffer.from(entry.code);
  const b = Buffer.from(code);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return false;
  codes.delete(key);
  return true;
}
