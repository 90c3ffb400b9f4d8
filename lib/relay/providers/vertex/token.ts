// Vertex AI access tokens from a service-account JSON key: an RS256 JWT (iss = client_email,
// scope cloud-platform, aud = the key's token_uri) exchanged at token_uri with the jwt-bearer
// grant. Google's tokens live an hour; one is reused per channel and key until 5 minutes before
// it expires, and concurrent requests needing a new one share a single exchange. The cache is
// process-local (each instance fetches its own tokens, which Google allows).
//
// token_uri comes from the key, which any admin may paste: it is reached under the same address
// rule as an address an admin (not root) set, internal addresses only with
// ChannelPrivateAddressAllowed on.
import { processSingleton } from "@/lib/singleton";
import { createHash } from "node:crypto";
import { importPKCS8, SignJWT } from "jose";
import { Agent, type Dispatcher, request } from "undici";
import { publicOnlyConnector } from "@/lib/net/public-connect";
import { getOptions } from "@/lib/options";
import { RelayError } from "../../errors";

export interface ServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri: string;
}

const DEFAULT_TOKEN_URI = "https://oauth2.googleapis.com/token";
const SCOPE = "https://www.googleapis.com/auth/cloud-platform";
/** A token is renewed this long before Google says it expires. */
const RENEW_BEFORE_MS = 5 * 60_000;
/** new-api's "impatient" client for token fetches. */
const TOKEN_TIMEOUT_MS = 5_000;

const channelError = (message: string, code: string) => new RelayError(500, message, { code, local: false });

/** The channel's key parsed as a service-account JSON key; a 500 naming the channel otherwise. */
export function parseServiceAccount(key: string, channelId: number): ServiceAccount {
  let v: unknown;
  try {
    v = JSON.parse(key);
  } catch {
    throw channelError(`channel #${channelId} (Vertex AI): the key is not a service-account JSON`, "channel_misconfigured");
  }
  const o = (v && typeof v === "object" ? v : {}) as Record<string, unknown>;
  for (const field of ["project_id", "client_email", "private_key"]) {
    if (typeof o[field] !== "string" || o[field] === "") {
      throw channelError(`channel #${channelId} (Vertex AI): the service-account JSON has no "${field}"`, "channel_misconfigured");
    }
  }
  return {
    project_id: o.project_id as string,
    client_email: o.client_email as string,
    private_key: o.private_key as string,
    private_key_id: typeof o.private_key_id === "string" ? o.private_key_id : undefined,
    token_uri: typeof o.token_uri === "string" && o.token_uri !== "" ? o.token_uri : DEFAULT_TOKEN_URI,
  };
}

/** Public addresses only, unless root allows channels to reach internal ones. */
async function tokenDispatcher(): Promise<Dispatcher | undefined> {
  if ((await getOptions()).ChannelPrivateAddressAllowed) return undefined;
  return processSingleton("vertexTokenAgent", () => new Agent({ connect: publicOnlyConnector({}), keepAliveTimeout: 10_000 }));
}

type Cached = { token: string; renewAt: number };

const cache = new Map<string, Cached>();
const pending = new Map<string, Promise<string>>();

/** Per channel and key (a changed key must not reuse the old key's token). */
const cacheKey = (channelId: number, key: string) => `${channelId}:${createHash("sha256").update(key).digest("hex").slice(0, 16)}`;

/** A cached token that is still good, or null (then `fetchAccessToken`). */
export function cachedAccessToken(channelId: number, key: string, now = Date.now()): string | null {
  const hit = cache.get(cacheKey(channelId, key));
  return hit && hit.renewAt > now ? hit.token : null;
}

async function exchange(sa: ServiceAccount, channelId: number): Promise<Cached> {
  let jwt: string;
  try {
    const pk = await importPKCS8(sa.private_key, "RS256");
    const now = Math.floor(Date.now() / 1000);
    jwt = await new SignJWT({ scope: SCOPE })
      .setProtectedHeader({ alg: "RS256", typ: "JWT", ...(sa.private_key_id ? { kid: sa.private_key_id } : {}) })
      .setIssuer(sa.client_email)
      .setAudience(sa.token_uri)
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(pk);
  } catch {
    throw channelError(`channel #${channelId} (Vertex AI): the service account's private_key cannot sign`, "channel_misconfigured");
  }
  let status: number;
  let text: string;
  try {
    const res = await request(sa.token_uri, {
      dispatcher: await tokenDispatcher(),
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: jwt }).toString(),
      signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
    });
    status = res.statusCode;
    text = await res.body.text();
  } catch {
    throw channelError(`channel #${channelId} (Vertex AI): the token endpoint could not be reached`, "vertex_token_failed");
  }
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // reported below
  }
  if (status !== 200 || typeof body.access_token !== "string") {
    const why =
      typeof body.error_description === "string"
        ? body.error_description
        : typeof body.error === "string"
          ? body.error
          : `status ${status}`;
    throw channelError(`channel #${channelId} (Vertex AI): access token refused: ${why}`, "vertex_token_failed");
  }
  const lifeMs = (typeof body.expires_in === "number" ? body.expires_in : 3600) * 1000;
  return { token: body.access_token, renewAt: Date.now() + Math.max(0, lifeMs - RENEW_BEFORE_MS) };
}

/** A new access token (or the one another request is already fetching), cached for later calls. */
export function fetchAccessToken(channelId: number, key: string, sa: ServiceAccount): Promise<string> {
  const k = cacheKey(channelId, key);
  let p = pending.get(k);
  if (!p) {
    p = exchange(sa, channelId)
      .then((got) => {
        cache.set(k, got);
        return got.token;
      })
      .finally(() => pending.delete(k));
    pending.set(k, p);
  }
  return p;
}

/** Forgets every cached token (tests). */
export function clearVertexTokens(): void {
  cache.clear();
}
