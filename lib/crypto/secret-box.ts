// Encryption of stored secrets (API keys, channel keys) with AES-256-GCM under a key derived
// from CRYPTO_SECRET, so a database dump alone does not hand them out.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { cryptoSecret } from "@/lib/env";

const VERSION = "v1";
let cached: { secret: string; key: Buffer } | undefined;

function key(): Buffer {
  const secret = cryptoSecret();
  if (cached?.secret !== secret) cached = { secret, key: createHash("sha256").update(`qiao-secret-box:${secret}`).digest() };
  return cached.key;
}

export function seal(plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key(), iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return `${VERSION}:${iv.toString("base64url")}:${body.toString("base64url")}:${cipher.getAuthTag().toString("base64url")}`;
}

export function open(sealed: string): string {
  const [version, iv, body, tag] = sealed.split(":");
  if (version !== VERSION || !iv || body === undefined || !tag) throw new Error("not a sealed value");
  const decipher = createDecipheriv("aes-256-gcm", key(), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
}

/** SHA-256 hex, for lookups of high-entropy secrets (API keys). */
export const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex");
