// Tencent Cloud API 3.0 signing, TC3-HMAC-SHA256 ("签名方法 v3"): canonical request (POST, "/",
// empty query, the signed headers, the payload's SHA-256), string to sign with the credential
// scope `{UTC date}/{service}/tc3_request`, key chain HMAC("TC3"+SecretKey, date) → service →
// "tc3_request". Pure (the timestamp is the caller's).
import { createHash, createHmac } from "node:crypto";

export interface Tc3Request {
  secretId: string;
  secretKey: string;
  /** The product ("hunyuan", "cvm"): the credential scope's service. */
  service: string;
  /** The Host header sent (host[:port]). */
  host: string;
  /** The Content-Type header sent, exactly. */
  contentType: string;
  payload: string;
  /** Unix seconds; also sent as X-TC-Timestamp. */
  timestamp: number;
}

const sha256Hex = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");
const hmac = (key: string | Buffer, msg: string) => createHmac("sha256", key).update(msg, "utf8").digest();

/** The UTC date of a Unix timestamp, `YYYY-MM-DD`. */
export function tc3Date(timestamp: number): string {
  return new Date(timestamp * 1000).toISOString().slice(0, 10);
}

export const TC3_SIGNED_HEADERS = "content-type;host";

export function tc3CanonicalRequest(r: Tc3Request): string {
  const headers = `content-type:${r.contentType.trim().toLowerCase()}\nhost:${r.host.trim().toLowerCase()}\n`;
  return `POST\n/\n\n${headers}\n${TC3_SIGNED_HEADERS}\n${sha256Hex(r.payload)}`;
}

export function tc3StringToSign(r: Tc3Request): string {
  const scope = `${tc3Date(r.timestamp)}/${r.service}/tc3_request`;
  return `TC3-HMAC-SHA256\n${r.timestamp}\n${scope}\n${sha256Hex(tc3CanonicalRequest(r))}`;
}

export function tc3Signature(r: Tc3Request): string {
  const date = tc3Date(r.timestamp);
  const signing = hmac(hmac(hmac(`TC3${r.secretKey}`, date), r.service), "tc3_request");
  return createHmac("sha256", signing).update(tc3StringToSign(r), "utf8").digest("hex");
}

/** The Authorization header's value. */
export function tc3Authorization(r: Tc3Request): string {
  const scope = `${tc3Date(r.timestamp)}/${r.service}/tc3_request`;
  return `TC3-HMAC-SHA256 Credential=${r.secretId}/${scope}, SignedHeaders=${TC3_SIGNED_HEADERS}, Signature=${tc3Signature(r)}`;
}
