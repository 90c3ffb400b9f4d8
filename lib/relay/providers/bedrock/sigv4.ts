// AWS Signature Version 4 for one request, header form (no presigned URLs), with node:crypto.
// Canonical request → string to sign → HMAC chain of the secret over date, region, service.
// Paths are encoded segment by segment as every AWS service but S3 expects: the path as it goes
// on the wire (already percent-encoded) is encoded once more, so Bedrock's model id
// `anthropic.…-v2:0`, sent as `…-v2%3A0`, is signed as `…-v2%253A0`.
import { createHash, createHmac } from "node:crypto";

export interface SigV4Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** Temporary credentials' token, sent and signed as x-amz-security-token. */
  sessionToken?: string;
}

export interface SigV4Request {
  method: string;
  url: URL;
  /** Headers to send and sign (host and x-amz-date are added). Names in any case. */
  headers: Record<string, string>;
  body: string | Uint8Array;
  region: string;
  service: string;
  /** Signing time; now when absent. */
  date?: Date;
}

const sha256Hex = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();

/** RFC 3986 encoding: everything but unreserved characters. */
function rfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** "20150830T123600Z" */
export function amzDate(d: Date): string {
  return d
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
}

function canonicalPath(pathname: string): string {
  if (pathname === "" || pathname === "/") return "/";
  return pathname
    .split("/")
    .map((seg) => rfc3986(seg))
    .join("/");
}

function canonicalQuery(search: URLSearchParams): string {
  const pairs = [...search.entries()].map(([k, v]) => [rfc3986(k), rfc3986(v)] as const);
  pairs.sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join("&");
}

export interface SigV4Result {
  /** The headers to send: the request's, plus x-amz-date, Authorization (and the token). */
  headers: Record<string, string>;
  authorization: string;
  canonicalRequest: string;
  stringToSign: string;
  signature: string;
}

/** Signs `req`; the caller sends `headers` (Host comes from the URL, as signed). */
export function signV4(req: SigV4Request, creds: SigV4Credentials): SigV4Result {
  const stamp = amzDate(req.date ?? new Date());
  const day = stamp.slice(0, 8);
  const sent: Record<string, string> = { ...req.headers, "x-amz-date": stamp };
  if (creds.sessionToken) sent["x-amz-security-token"] = creds.sessionToken;

  const signed = new Map<string, string>([["host", req.url.host]]);
  for (const [k, v] of Object.entries(sent)) signed.set(k.toLowerCase(), v.trim().replace(/\s+/g, " "));
  const names = [...signed.keys()].sort();
  const signedHeaders = names.join(";");
  const canonicalRequest = [
    req.method.toUpperCase(),
    canonicalPath(req.url.pathname),
    canonicalQuery(req.url.searchParams),
    ...names.map((n) => `${n}:${signed.get(n)}`),
    "",
    signedHeaders,
    sha256Hex(req.body),
  ].join("\n");

  const scope = `${day}/${req.region}/${req.service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", stamp, scope, sha256Hex(canonicalRequest)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${creds.secretAccessKey}`, day), req.region), req.service), "aws4_request");
  const signature = createHmac("sha256", key).update(stringToSign).digest("hex");
  const authorization = `AWS4-HMAC-SHA256 Credential=${creds.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { headers: { ...sent, Authorization: authorization }, authorization, canonicalRequest, stringToSign, signature };
}
