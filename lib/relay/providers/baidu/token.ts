// Baidu's access token: the channel's `API Key|Secret Key` exchanged at
// `POST {base}/oauth/2.0/token?grant_type=client_credentials&client_id=…&client_secret=…` (base:
// the channel's base URL, else aip.baidubce.com). Cached per key (process-local) until an hour
// before `expires_in` runs out (30 days as issued), concurrent fetches for one key share one
// request, and a token Baidu calls invalid (error 110/111) is dropped so the next call fetches
// a new one. A failed fetch is the channel's fault: the next channel is tried.
import { RelayError } from "../../errors";

/** The token is replaced this long before Baidu says it expires. */
const RENEW_BEFORE_MS = 60 * 60 * 1000;
/** The token call's own time limit (the vendor's OAuth endpoint, not the model). */
const FETCH_TIMEOUT_MS = 5_000;

interface Entry {
  token: string;
  expiresAt: number;
}

const cache = new Map<string, Entry>();
const pending = new Map<string, Promise<string>>();

function cacheKey(base: string, key: string): string {
  return `${base}\n${key}`;
}

/** `API Key|Secret Key` → its two parts; a channel saved otherwise is misconfigured. */
export function splitBaiduKey(key: string): { clientId: string; clientSecret: string } {
  const parts = key.split("|");
  if (parts.length !== 2 || parts[0]!.trim() === "" || parts[1]!.trim() === "") {
    throw new RelayError(500, "百度渠道的密钥格式应为 API Key|Secret Key", { code: "channel_misconfigured", local: false });
  }
  return { clientId: parts[0]!.trim(), clientSecret: parts[1]!.trim() };
}

async function fetchToken(base: string, clientId: string, clientSecret: string): Promise<Entry> {
  const query = new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret });
  let res: Response;
  try {
    res = await fetch(`${base}/oauth/2.0/token?${query}`, {
      method: "POST",
      headers: { Accept: "application/json" },
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
  } catch (error) {
    throw new RelayError(502, `获取百度 access token 失败：${(error as Error).message}`, { code: "access_token_failed", local: false });
  }
  let json: Record<string, unknown> = {};
  try {
    json = (await res.json()) as Record<string, unknown>;
  } catch {
    /* not JSON: reported below */
  }
  if (typeof json.access_token !== "string" || json.access_token === "") {
    const reason =
      typeof json.error_description === "string"
        ? json.error_description
        : typeof json.error === "string"
          ? json.error
          : `HTTP ${res.status}`;
    throw new RelayError(502, `获取百度 access token 失败：${reason}`, { code: "access_token_failed", local: false });
  }
  const expiresIn = typeof json.expires_in === "number" && json.expires_in > 0 ? json.expires_in : 30 * 24 * 3600;
  return { token: json.access_token, expiresAt: Date.now() + expiresIn * 1000 };
}

/** The cached token for this channel key, else one fetched now (shared with concurrent callers). */
export function baiduAccessToken(base: string, key: string): string | Promise<string> {
  const { clientId, clientSecret } = splitBaiduKey(key);
  const id = cacheKey(base, key);
  const hit = cache.get(id);
  if (hit && hit.expiresAt - RENEW_BEFORE_MS > Date.now()) return hit.token;
  let wait = pending.get(id);
  if (!wait) {
    wait = fetchToken(base, clientId, clientSecret)
      .then((entry) => {
        if (cache.size > 1000) cache.clear();
        cache.set(id, entry);
        return entry.token;
      })
      .finally(() => pending.delete(id));
    pending.set(id, wait);
  }
  return wait;
}

/** Baidu said this token is invalid or expired: forget it (only if it is still the cached one). */
export function dropBaiduToken(base: string, key: string, token: string): void {
  const id = cacheKey(base, key);
  if (cache.get(id)?.token === token) cache.delete(id);
}
