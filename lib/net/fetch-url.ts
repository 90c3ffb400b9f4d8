// Server-side fetches of a URL a user supplied (an image or file URL in a prompt; later webhooks and
// callbacks). Prompt images are fetched for vendors that need their bytes (fetchUserImage); the
// token count only estimates them (lib/relay/tokens.ts), and channel addresses are admins'
// (lib/channels/address.ts). Whatever fetches a user's URL goes through `fetchUserUrl`:
// - With root's worker proxy set (WorkerUrl, and WorkerValidKey as its password), the fetch is
//   handed to the worker as new-api does: `POST {WorkerUrl}` with the JSON body
//   `{url, key, method, headers, body}`; the worker's answer is the answer. This server then never
//   opens a connection to the user's host.
// - Without one, only public addresses are reached: http(s) only, every connection checked after
//   DNS with no second lookup (publicOnlyConnector), and redirects followed here, one hop at a
//   time, so each new host is checked too.
// Both ways cap the time and the size of the answer.
import { Agent, type Dispatcher, request } from "undici";
import { publicOnlyConnector } from "@/lib/net/public-connect";
import { getOptions } from "@/lib/options";

export const FETCH_URL_MSG = {
  badUrl: "只支持 http:// 或 https:// 开头的地址",
  tooLarge: "文件过大",
  tooManyRedirects: "重定向次数过多",
  notImage: "图片地址指向的不是图片",
  fetchFailed: "图片下载失败",
} as const;

/** A user's URL that could not be fetched; the message is safe to show that user. */
export class UserUrlError extends Error {
  constructor(message: string) {
    super(message);
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

type G = { __qiaoUserUrlAgent?: Agent };

/** Connections of direct fetches: public addresses only. */
function publicAgent(): Agent {
  const g = globalThis as G;
  g.__qiaoUserUrlAgent ??= new Agent({ connect: publicOnlyConnector({}), keepAliveTimeout: 10_000 });
  return g.__qiaoUserUrlAgent;
}

async function readCapped(res: Dispatcher.ResponseData, maxBytes: number): Promise<Buffer> {
  const declared = Number(res.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.body.destroy();
    throw new UserUrlError(FETCH_URL_MSG.tooLarge);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      res.body.destroy();
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
export async function fetchUserUrl(rawUrl: string, init: UserUrlRequest = {}): Promise<UserUrlAnswer> {
  const url = httpUrl(rawUrl);
  const method = init.method ?? "GET";
  const maxBytes = init.maxBytes ?? DEFAULT_MAX_BYTES;
  const signal = AbortSignal.timeout(init.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const options = await getOptions();

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

  let target = url;
  let currentMethod: string = method;
  let body = init.body;
  let headers = init.headers;
  for (let hop = 0; ; hop++) {
    const res = await request(target, {
      method: currentMethod as Dispatcher.HttpMethod,
      headers,
      body,
      dispatcher: publicAgent(),
      signal,
    });
    const location = header(res, "location");
    if (!REDIRECTS.has(res.statusCode) || !location) {
      return { status: res.statusCode, contentType: header(res, "content-type"), body: await readCapped(res, maxBytes), via: "direct" };
    }
    res.body.destroy();
    if (hop >= MAX_REDIRECTS) throw new UserUrlError(FETCH_URL_MSG.tooManyRedirects);
    const next = httpUrl(location, target);
    // The caller's headers (a webhook's credentials) are for the host it named, not another one.
    if (next.origin !== target.origin) headers = undefined;
    target = next;
    if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && currentMethod === "POST")) {
      currentMethod = "GET";
      body = undefined;
    }
  }
}

/** An image a prompt names, as bytes: what vendors that take no image URLs need (Gemini, Claude, Bedrock). */
export type UserImage = { mediaType: string; base64: string };

const DATA_URL = /^data:([^;,]+)?((?:;[^;,]+)*?);base64,(.*)$/s;

/**
 * The image behind a prompt's `image_url`: a `data:` URL is decoded in place; an http(s) URL is
 * fetched through fetchUserUrl (worker proxy or public addresses only, size and time capped).
 * Anything that is not an image is refused with a message the caller may read.
 */
export async function fetchUserImage(url: string, init: Pick<UserUrlRequest, "timeoutMs" | "maxBytes"> = {}): Promise<UserImage> {
  const data = DATA_URL.exec(url);
  if (data) {
    const mediaType = (data[1] ?? "").toLowerCase();
    if (!mediaType.startsWith("image/")) throw new UserUrlError(FETCH_URL_MSG.notImage);
    return { mediaType, base64: data[3]!.replace(/\s+/g, "") };
  }
  const answer = await fetchUserUrl(url, init);
  if (answer.status < 200 || answer.status >= 300) throw new UserUrlError(`${FETCH_URL_MSG.fetchFailed}（状态码 ${answer.status}）`);
  const mediaType = answer.contentType.split(";")[0]!.trim().toLowerCase();
  if (!mediaType.startsWith("image/")) throw new UserUrlError(FETCH_URL_MSG.notImage);
  return { mediaType, base64: answer.body.toString("base64") };
}
