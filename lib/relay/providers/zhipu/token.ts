// Zhipu's API key `id.secret` → the JWT both of its APIs (v3 and v4) accept: HS256, header
// `{alg, sign_type: "SIGN"}`, claims `{api_key, exp, timestamp}` in MILLISECONDS. Signed with
// node:crypto (synchronous, so a cached or fresh token never makes buildRequest wait) and cached
// per key until shortly before it expires. The cache is process-local.
import { createHmac } from "node:crypto";
import { RelayError } from "../../errors";

/** How long a token is valid. */
export const ZHIPU_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;
/** A cached token is replaced this long before it expires. */
const RENEW_BEFORE_MS = 5 * 60 * 1000;

const b64url = (s: string | Buffer) => Buffer.from(s).toString("base64url");

/** A fresh token for `id.secret` (pure but for `now`). */
export function signZhipuToken(key: string, now: number, ttlMs = ZHIPU_TOKEN_TTL_MS): string {
  const dot = key.indexOf(".");
  const id = dot > 0 ? key.slice(0, dot) : "";
  const secret = dot > 0 ? key.slice(dot + 1) : "";
  if (id === "" || secret === "" || secret.includes(".")) {
    throw new RelayError(500, "智谱渠道的密钥格式应为 id.secret", { code: "channel_misconfigured", local: false });
  }
  const header = b64url(JSON.stringify({ alg: "HS256", sign_type: "SIGN" }));
  const payload = b64url(JSON.stringify({ api_key: id, exp: now + ttlMs, timestamp: now }));
  const signature = createHmac("sha256", secret).update(`${header}.${payload}`).digest("base64url");
  return `${header}.${payload}.${signature}`;
}

const cache = new Map<string, { token: string; expiresAt: number }>();

/** The cached token for this key, signed anew when missing or near expiry. */
export function zhipuToken(key: string, now = Date.now()): string {
  const hit = cache.get(key);
  if (hit && hit.expiresAt - RENEW_BEFORE_MS > now) return hit.token;
  const token = signZhipuToken(key, now);
  if (cache.size > 1000) cache.clear();
  cache.set(key, { token, expiresAt: now + ZHIPU_TOKEN_TTL_MS });
  return token;
}
