// The Content-Security-Policy of console pages (proxy.ts sets it per request). Scripts run only
// with this response's nonce (Next puts it on its own scripts; layout.tsx on Mantine's color
// scheme script) or when loaded by such a script ('strict-dynamic': Next's chunks, Turnstile).
// Styles stay inline-capable: Mantine writes style attributes and <style> tags as it renders.

/** Request header carrying the nonce from proxy.ts to the layout. */
export const NONCE_HEADER = "x-qiao-nonce";

/** Turnstile's script and frame (the bot check on login and register). */
const TURNSTILE_ORIGIN = "https://challenges.cloudflare.com";

/** A fresh nonce: 128 random bits, base64. */
export function newNonce(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
}

/**
 * `dev`: `next dev` needs eval (React's dev tooling) and a websocket (hot reload). `formTargets`:
 * origins forms may be posted to besides this site (the payment gateway, lib/payments/form-targets.ts).
 */
export function consolePolicy(nonce: string, dev = false, formTargets: readonly string[] = []): string {
  const directives: Record<string, string[]> = {
    "default-src": ["'self'"],
    "script-src": ["'self'", `'nonce-${nonce}'`, "'strict-dynamic'", TURNSTILE_ORIGIN, ...(dev ? ["'unsafe-eval'"] : [])],
    "style-src": ["'self'", "'unsafe-inline'"],
    // The logo and notices may show images from anywhere the admin chose.
    "img-src": ["'self'", "data:", "blob:", "http:", "https:"],
    "font-src": ["'self'", "data:"],
    "connect-src": ["'self'", ...(dev ? ["ws:", "wss:"] : [])],
    // Home and about content may embed any http(s) page (sandboxed); Turnstile runs in a frame.
    "frame-src": ["http:", "https:"],
    // No other site may frame the console (clickjacking).
    "frame-ancestors": ["'self'"],
    "form-action": ["'self'", ...formTargets],
    "base-uri": ["'self'"],
    "object-src": ["'none'"],
  };
  return Object.entries(directives)
    .map(([name, values]) => `${name} ${values.join(" ")}`)
    .join("; ");
}
