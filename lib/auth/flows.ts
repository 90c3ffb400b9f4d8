// Short-lived, single-use steps of sign-in ceremonies (auth_flows): an OAuth `state`, a WebAuthn
// challenge. The handle given out is random; the table keeps only its SHA-256. A flow may be bound
// to the browser that started it through the `qiao_flow` cookie (a random value per browser, also
// stored hashed), so a handle copied to another browser is refused. Taking a flow deletes it: of
// two requests racing with one handle, one gets the data and the other null.
import { randomBytes } from "node:crypto";
import { isHttps, serializeCookie } from "@/lib/auth/cookie";
import { readCookie } from "@/lib/auth/session";
import { sha256Hex } from "@/lib/crypto/secret-box";
import { getDirectDb } from "@/lib/db/direct";
import { int, nowSeconds, str } from "@/lib/db/num";
import { env } from "@/lib/env";

export const FLOW_COOKIE = "qiao_flow";
/** The browser cookie outlives any one flow; a day is plenty and is renewed by each new flow. */
const FLOW_COOKIE_SECONDS = 86_400;

export type FlowBinding = {
  /** The browser's flow cookie value (new when the browser had none). */
  browser: string;
  /** The Set-Cookie value to send when the browser had no flow cookie yet; null otherwise. */
  setCookie: string | null;
};

/** The browser's flow cookie, or a new one with the Set-Cookie that gives it. */
export function browserBinding(req: Request): FlowBinding {
  const existing = readCookie(req.headers.get("cookie"), FLOW_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{32,64}$/.test(existing)) return { browser: existing, setCookie: null };
  const browser = randomBytes(24).toString("base64url");
  // SameSite=Lax: the provider's redirect back to us is a top-level GET, which Lax cookies follow.
  return {
    browser,
    setCookie: serializeCookie(FLOW_COOKIE, browser, {
      path: "/",
      maxAge: FLOW_COOKIE_SECONDS,
      secure: isHttps(req) || env.SECURE_COOKIES,
    }),
  };
}

/** The browser's flow cookie value, or "" when it has none. */
export function browserOf(req: Request): string {
  return readCookie(req.headers.get("cookie"), FLOW_COOKIE) ?? "";
}

/** Starts a flow and returns its handle (base64url, 32 random bytes). */
export async function startFlow(
  kind: string,
  options: { ttlSeconds: number; browser?: string; userId?: number; data?: Record<string, unknown> },
): Promise<string> {
  const handle = randomBytes(32).toString("base64url");
  const now = nowSeconds();
  const db = await getDirectDb();
  await db.execute("DELETE FROM auth_flows WHERE expires_at < ?", [now]);
  await db.execute("INSERT INTO auth_flows (id, kind, browser, user_id, data, expires_at) VALUES (?, ?, ?, ?, ?, ?)", [
    sha256Hex(handle),
    kind,
    options.browser ? sha256Hex(options.browser) : "",
    options.userId ?? 0,
    JSON.stringify(options.data ?? {}),
    now + options.ttlSeconds,
  ]);
  return handle;
}

export type TakenFlow = { userId: number; data: Record<string, unknown> };

/**
 * Takes (deletes) the flow `handle` of `kind` and returns its data, or null: unknown, expired,
 * already taken, of another kind, or bound to another browser than `browser`. A flow taken from
 * the wrong browser is still deleted, so a leaked handle cannot be retried from the right one.
 */
export async function takeFlow(kind: string, handle: string | null | undefined, browser?: string): Promise<TakenFlow | null> {
  if (!handle || handle.length > 256) return null;
  const id = sha256Hex(handle);
  const db = await getDirectDb();
  const [row] = await db.query("SELECT kind, browser, user_id, data, expires_at FROM auth_flows WHERE id = ?", [id]);
  if (!row) return null;
  // Only the request whose DELETE removed the row may use it.
  if ((await db.execute("DELETE FROM auth_flows WHERE id = ?", [id])) !== 1) return null;
  if (str(row.kind) !== kind || int(row.expires_at) < nowSeconds()) return null;
  const bound = str(row.browser);
  if (bound && (!browser || sha256Hex(browser) !== bound)) return null;
  try {
    return { userId: int(row.user_id), data: JSON.parse(str(row.data)) as Record<string, unknown> };
  } catch {
    return null;
  }
}
