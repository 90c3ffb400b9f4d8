// Server-side fetches of a URL a user supplied (an image or file URL in a prompt; later webhooks and
// callbacks): the one SSRF guard. Prompt images are fetched for vendors that need their bytes
// (fetchUserImage, through lib/relay/request/images.ts in adapters); the token count only estimates them
// (lib/relay/openai/token-count.ts), and channel addresses are admins' (lib/channels/address.ts). Whatever
// fetches a user's URL goes through `fetchUserUrl`:
// - Only http: and https: URLs, parsed once by the WHATWG parser, so every spelling of a host
//   (2130706433, 0x7f000001, 0177.0.0.1, 127.1, [::ffff:7f00:1], user@host, a trailing dot)
//   reaches the checks as the address it means.
// - With root's worker proxy set (WorkerUrl, and WorkerValidKey as its password), the fetch is
//   handed to the worker as new-api does: `POST {WorkerUrl}` with the JSON body
//   `{url, key, method, headers, body}`; the worker's answer is the answer. This server then never
//   opens a connection to the user's host.
// - Without one, only public addresses are reached (lib/net/public-connect.ts): every connection
//   is checked after DNS against isInternalAddress (lib/net/ip.ts: loopback, private, link-local
//   and cloud metadata, CGNAT, unspecified, multicast, reserved and broadcast, IPv6 unique- and
//   link-local, and IPv6 forms carrying such an IPv4 address: mapped, compatible, NAT64, 6to4,
//   Teredo), and the socket connects to an address of that same answer (no second lookup). A
//   name with any internal address is refused as a whole. Redirects are followed here, one hop at
//   a time, so each new URL is parsed and its host checked again; at most 5.
// - Both ways cap the size (20 MB) and the whole time (20 s): one deadline covers connecting,
//   the headers and every byte of the body, so a body that trickles forever is cut off.
// Every failure is a UserUrlError whose message is safe to show the user (it never says what a
// name resolved to); the cause keeps the detail.
import { Agent, type Dispatcher, request } from "undici";
import { InternalAddressError, publicOnlyConnector } from "@/lib/net/public-connect";
import { getOptions } from "@/lib/options";
import { processSingleton } from "@/lib/singleton";

export const FETCH_URL_MSG = {
  badUrl: "只支持 http:// 或 https:// 开头的地址",
  tooLarge: "文件过大",
  tooManyRedirects: "重定向次数过多",
  internalAddress: "不允许访问本机、内网或保留地址",
  timeout: "下载超时",
  unreachable: "无法访问该地址",
  notImage: "图片地址指向的不是图片",
  badDataUrl: "图片 data URL 格式错误，需为 data:image/…;base64,…",
  fetchFailed: "图片下载失败",
} as const;

/** A user's URL that could not be fetched; the message is safe to show that user. */
export class UserUrlError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "UserUrlError";
  }
}

export type UserUrlRequest = {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
  maxBytes?: number;
};

export type UserUrlAnswer = { status: number; contentType: string; body: Buffer; via: "worker" | "direct" };

/** new-api's MAX_FILE_DOWNLOAD_MB default. */
const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 20_000;
const MAX_REDIRECTS = 5;
const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** What the worker receives (new-api's WorkerRequest). */
export type WorkerRequest = { url: string; key: string; method: string; headers?: Record<string, string>; body?: string };

function httpUrl(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new UserUrlError(FETCH_URL_MSG.badUrl);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UserUrlError(FETCH_URL_MSG.badUrl);
  return url;
}

/** Connections of direct fetches: public addresses only. */
function publicAgent(): Agent {
  return processSingleton("userUrlAgent", () => new Agent({ connect: publicOnlyConnector({}), keepAliveTimeout: 10_000 }));
}

/**
 * Drops an answer's body unread. undici's body emits "Request aborted" when destroyed, with no
 * listener an uncaught exception that would take the process down: it is listened to here.
 */
function discard(res: Dispatcher.ResponseData): void {
  res.body.on("error", () => {});
  res.body.destroy();
}

async function readCapped(res: Dispatcher.ResponseData, maxBytes: number): Promise<Buffer> {
  const declared = Number(res.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    discard(res);
    throw new UserUrlError(FETCH_URL_MSG.tooLarge);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      discard(res);
      throw new UserUrlError(FETCH_URL_MSG.tooLarge);
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

const header = (res: Dispatcher.ResponseData, name: string) => {
  const v = res.headers[name];
  return Array.isArray(v) ? (v[0] ?? "") : (v ?? "");
};

/** Fetches a URL a user supplied: through root's worker proxy when one is set, else directly with the address checks. */
export function fetchUserUrl(rawUrl: string, init: UserUrlRequest = {}): Promise<UserUrlAnswer> {
  return fetchUserUrlVia(publicAgent(), rawUrl, init);
}

/** What a failed fetch tells the user: never a resolved address, never a socket error's text. */
function userUrlFailure(error: unknown, signal: AbortSignal): UserUrlError {
  if (error instanceof UserUrlError) return error;
  if (error instanceof InternalAddressError) return new UserUrlError(FETCH_URL_MSG.internalAddress, { cause: error });
  if (signal.aborted) return new UserUrlError(FETCH_URL_MSG.timeout, { cause: error });
  return new UserUrlError(FETCH_URL_MSG.unreachable, { cause: error });
}

/**
 * fetchUserUrl with the dispatcher of direct fetches given. Production passes the public-only
 * agent; it is a parameter only so that tests can pass one whose connector takes a loopback
 * server for a public host (publicOnlyConnector's `refused`).
 */
export async function fetchUserUrlVia(direct: Dispatcher, rawUrl: string, init: UserUrlRequest = {}): Promise<UserUrlAnswer> {
  const url = httpUrl(rawUrl);
  const method = init.method ?? "GET";
  const maxBytes = init.maxBytes ?? DEFAULT_MAX_BYTES;
  // One deadline for the whole fetch: undici aborts the body too once it fires.
  const signal = AbortSignal.timeout(init.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const options = await getOptions();
  try {
    if (options.WorkerUrl) {
      const payload: WorkerRequest = { url: url.href, key: options.WorkerValidKey, method, headers: init.headers, body: init.body };
      // The worker's address is root's: it is trusted like a channel address root set.
      const res = await request(options.WorkerUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(payload),
        signal,
      });
      return { status: res.statusCode, contentType: header(res, "content-type"), body: await readCapped(res, maxBytes), via: "worker" };
    }
    return await fetchDirect(direct, url, { method, headers: init.headers, body: init.body }, maxBytes, signal);
  } catch (error) {
    throw userUrlFailure(error, signal);
  }
}

async function fetchDirect(
  direct: Dispatcher,
  url: URL,
  first: { method: string; headers?: Record<string, string>; body?: string },
  maxBytes: number,
  signal: AbortSignal,
): Promise<UserUrlAnswer> {
  let target = url;
  let { method, headers, body } = first;
  for (let hop = 0; ; hop++) {
    const res = await request(target, { method: method as Dispatcher.HttpMethod, headers, body, dispatcher: direct, signal });
    const location = header(res, "location");
    if (!REDIRECTS.has(res.statusCode) || !location) {
      return { status: res.statusCode, contentType: header(res, "content-type"), body: await readCapped(res, maxBytes), via: "direct" };
    }
    discard(res);
    if (hop >= MAX_REDIRECTS) throw new UserUrlError(FETCH_URL_MSG.tooManyRedirects);
    // Parsed and checked like the first URL: http(s) only, and its host is checked when connected.
    const next = httpUrl(location, target);
    // The caller's headers (a webhook's credentials) are for the host it named, not another one.
    if (next.origin !== target.origin) headers = undefined;
    target = next;
    if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
    }
  }
}

/** An image a prompt names, as bytes: what vendors that take no image URLs need (Gemini, Claude, Bedrock). */
export type UserImage = { mediaType: string; base64: string };

const DATA_URL = /^data:([^;,]*)((?:;[^;,]*)*?)(;base64)?,(.*)$/is;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A `data:` image URL's bytes, re-encoded as canonical (padded) base64. */
function dataImage(url: string, maxBytes: number): UserImage {
  const data = DATA_URL.exec(url);
  if (!data?.[3]) throw new UserUrlError(FETCH_URL_MSG.badDataUrl);
  const mediaType = data[1]!.trim().toLowerCase();
  if (!mediaType.startsWith("image/")) throw new UserUrlError(FETCH_URL_MSG.notImage);
  // Forgiving base64 (as browsers decode data: URLs): whitespace ignored, padding optional.
  const text = data[4]!.replace(/[\t\n\f\r ]+/g, "");
  const unpadded = text.replace(/={1,2}$/, "");
  if (!text || !BASE64.test(text) || unpadded.length % 4 === 1 || (text.length !== unpadded.length && text.length % 4 !== 0))
    throw new UserUrlError(FETCH_URL_MSG.badDataUrl);
  if (Math.floor((unpadded.length * 3) / 4) > maxBytes) throw new UserUrlError(FETCH_URL_MSG.tooLarge);
  return { mediaType, base64: Buffer.from(unpadded, "base64").toString("base64") };
}

/**
 * The image behind a prompt's `image_url`: a `data:` URL is decoded in place (base64 only); an
 * http(s) URL is fetched through fetchUserUrl (worker proxy or public addresses only, size and
 * time capped). Anything that is not an image is refused with a message the caller may read.
 */
export function fetchUserImage(url: string, init: Pick<UserUrlRequest, "timeoutMs" | "maxBytes"> = {}): Promise<UserImage> {
  return fetchUserImageVia(publicAgent(), url, init);
}

/** fetchUserImage with the dispatcher of direct fetches given: for tests, like fetchUserUrlVia. */
export async function fetchUserImageVia(
  direct: Dispatcher,
  url: string,
  init: Pick<UserUrlRequest, "timeoutMs" | "maxBytes"> = {},
): Promise<UserImage> {
  if (/^\s*data:/i.test(url)) return dataImage(url.trim(), init.maxBytes ?? DEFAULT_MAX_BYTES);
  let answer: UserUrlAnswer;
  try {
    answer = await fetchUserUrlVia(direct, url, init);
  } catch (error) {
    if (!(error instanceof UserUrlError)) throw error;
    throw new UserUrlError(`${FETCH_URL_MSG.fetchFailed}：${error.message}`, { cause: error });
  }
  if (answer.status < 200 || answer.status >= 300) throw new UserUrlError(`${FETCH_URL_MSG.fetchFailed}（状态码 ${answer.status}）`);
  const mediaType = answer.contentType.split(";")[0]!.trim().toLowerCase();
  if (!mediaType.startsWith("image/")) throw new UserUrlError(FETCH_URL_MSG.notImage);
  return { mediaType, base64: answer.body.toString("base64") };
}
