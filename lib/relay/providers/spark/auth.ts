// Spark's WebSocket URL and its signature (iFlytek's "通用 URL 鉴权"): the query carries `host`,
// `date` (RFC 1123) and `authorization`, base64 of
//   api_key="…", algorithm="hmac-sha256", headers="host date request-line", signature="…"
// where the signature is base64(HMAC-SHA256(APISecret, "host: {host}\ndate: {date}\nGET {path} HTTP/1.1")).
import { createHmac } from "node:crypto";

export interface SparkKey {
  appId: string;
  apiSecret: string;
  apiKey: string;
}

/** `APPID|APISecret|APIKey` (the catalogue's keyFormat), or null when it is not three parts. */
export function parseSparkKey(key: string): SparkKey | null {
  const parts = key.split("|").map((p) => p.trim());
  if (parts.length !== 3 || parts.some((p) => p === "")) return null;
  return { appId: parts[0]!, apiSecret: parts[1]!, apiKey: parts[2]! };
}

/** The signature of one request line (exported for the published test vector). */
export function sparkSignature(apiSecret: string, host: string, date: string, path: string): string {
  return createHmac("sha256", apiSecret).update(`host: ${host}\ndate: ${date}\nGET ${path} HTTP/1.1`).digest("base64");
}

/** `wss://host/path?authorization=…&date=…&host=…`, signed for `date` (now by default). */
export function signSparkUrl(url: string, key: SparkKey, date: Date = new Date()): string {
  const u = new URL(url);
  const rfc1123 = date.toUTCString();
  const signature = sparkSignature(key.apiSecret, u.host, rfc1123, u.pathname);
  const origin = `api_key="${key.apiKey}", algorithm="hmac-sha256", headers="host date request-line", signature="${signature}"`;
  const query = new URLSearchParams({
    authorization: Buffer.from(origin).toString("base64"),
    date: rfc1123,
    host: u.host,
  });
  return `${u.origin}${u.pathname}?${query.toString()}`;
}

/** One Spark version: the URL path and the `domain` parameter it takes. */
export interface SparkVersion {
  path: string;
  domain: string;
}

// iFlytek's WebSocket document, "请求地址": Lite v1.1 (lite), Pro v3.1 (generalv3), Pro-128K
// chat/pro-128k, Max v3.5 (generalv3.5), Max-32K chat/max-32k, 4.0 Ultra v4.0 (4.0Ultra); v2.1
// (generalv2) is the retired V2 that old channels still name.
const VERSIONS: Record<string, SparkVersion> = {
  "v1.1": { path: "/v1.1/chat", domain: "lite" },
  lite: { path: "/v1.1/chat", domain: "lite" },
  general: { path: "/v1.1/chat", domain: "lite" },
  "v2.1": { path: "/v2.1/chat", domain: "generalv2" },
  generalv2: { path: "/v2.1/chat", domain: "generalv2" },
  "v3.1": { path: "/v3.1/chat", domain: "generalv3" },
  pro: { path: "/v3.1/chat", domain: "generalv3" },
  generalv3: { path: "/v3.1/chat", domain: "generalv3" },
  "pro-128k": { path: "/chat/pro-128k", domain: "pro-128k" },
  "v3.5": { path: "/v3.5/chat", domain: "generalv3.5" },
  max: { path: "/v3.5/chat", domain: "generalv3.5" },
  "generalv3.5": { path: "/v3.5/chat", domain: "generalv3.5" },
  "max-32k": { path: "/chat/max-32k", domain: "max-32k" },
  "v4.0": { path: "/v4.0/chat", domain: "4.0Ultra" },
  "4.0ultra": { path: "/v4.0/chat", domain: "4.0Ultra" },
  ultra: { path: "/v4.0/chat", domain: "4.0Ultra" },
};

/**
 * The version a request goes to: the model's own (`SparkDesk-v3.5`, `SparkDesk-max-32k`, or a
 * domain as the model name: `generalv3.5`, `4.0Ultra`), else the channel's `other` (a version such
 * as "v3.5"), else Lite (v1.1). An unknown `vX.Y` keeps its path with domain "general" + X.Y.
 */
export function sparkVersion(model: string, other: string): SparkVersion {
  const m = /^sparkdesk(?:-(.+))?$/i.exec(model.trim());
  const fromModel = m ? (m[1] ?? "") : model.trim();
  for (const candidate of [fromModel, other.trim(), "v1.1"]) {
    if (candidate === "") continue;
    const known = VERSIONS[candidate.toLowerCase()];
    if (known) return known;
    const v = /^v(\d+(?:\.\d+)?)$/i.exec(candidate);
    if (v) return { path: `/v${v[1]}/chat`, domain: `general${v[1]}` };
  }
  return VERSIONS["v1.1"]!;
}
