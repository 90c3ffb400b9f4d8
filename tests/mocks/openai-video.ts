// A mock of OpenAI's video API (Sora) on 127.0.0.1, in OpenAI's wire format and on Azure OpenAI's
// v1 surface: POST /v1/videos (JSON or multipart with an `input_reference` file),
// GET /v1/videos/{id}, GET /v1/videos/{id}/content?variant=…, POST /v1/videos/{id}/remix; the same
// under /openai/v1/videos?api-version=preview with the `api-key` header (Azure). A video moves one
// step per GET of it: queued → in_progress → completed; a prompt containing "[fail]" ends failed
// (moderation) instead. Its bytes are served once it has completed.
//
//   const mock = await startVideoMock({ apiKey: "sk-up" });
//   mock.failCreates(500);                 // the next create answers 500 (then normal again)
//   mock.requests.at(-1)!.form?.get("model"); mock.videos.get(id)!.status; await mock.close();
import { randomBytes } from "node:crypto";
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type MockVideoStatus = "queued" | "in_progress" | "completed" | "failed";

export interface MockVideo {
  id: string;
  object: "video";
  model: string;
  status: MockVideoStatus;
  progress: number;
  created_at: number;
  completed_at: number | null;
  expires_at: number | null;
  prompt: string;
  seconds: string;
  size: string;
  remixed_from_video_id: string | null;
  error: { code: string; message: string } | null;
}

export interface RecordedVideoRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  bytes: Buffer;
  /** The JSON body, when it was JSON. */
  json: Record<string, unknown> | undefined;
  /** The multipart body's fields and files, when it was multipart. */
  form: FormData | undefined;
  /** "create", "retrieve", "content", "remix", or "unknown". */
  kind: string;
  /** Which surface was called. */
  surface: "openai" | "azure";
}

export interface VideoMockOptions {
  /** Require this key (`Authorization: Bearer` on /v1, `api-key` on Azure's /openai/v1); 401 otherwise. */
  apiKey?: string;
  /**
   * Add a `download_url` pointing at this server to every video object, as some proxies in front
   * of OpenAI do: the relay must never show it.
   */
  downloadUrls?: boolean;
}

export interface VideoMock {
  url: string;
  port: number;
  requests: RecordedVideoRequest[];
  videos: Map<string, MockVideo>;
  /**
   * The next `times` creates (and remixes) answer `status` with an OpenAI error body, or with `raw`
   * (a proxy's page, a malformed answer) when given.
   */
  failCreates(status: number, times?: number, raw?: { contentType: string; body: string }): void;
  /** The bytes `GET …/content?variant=` answers for a video. */
  contentOf(id: string, variant?: string): { type: string; bytes: Buffer };
  reset(): void;
  close(): Promise<void>;
}

const ERRORS: Record<number, { message: string; type: string; code: string | null }> = {
  400: { message: "Invalid request.", type: "invalid_request_error", code: null },
  401: {
    message: "Incorrect API key provided: sk-up***. You can find your API key at https://platform.openai.com/account/api-keys.",
    type: "invalid_request_error",
    code: "invalid_api_key",
  },
  429: {
    message: "Rate limit reached for sora-2 on requests per min (RPM): Limit 2, Used 2.",
    type: "requests",
    code: "rate_limit_exceeded",
  },
  500: { message: "The server had an error while processing your request. Sorry about that!", type: "server_error", code: null },
};

const SECONDS = ["4", "8", "12"];
const SIZES = ["720x1280", "1280x720", "1024x1792", "1792x1024"];
/** Variants and their types, as OpenAI serves them. */
const VARIANTS: Record<string, string> = { video: "video/mp4", thumbnail: "image/webp", spritesheet: "image/jpeg" };

const nowSec = () => Math.floor(Date.now() / 1000);
const videoId = () => `video_${randomBytes(16).toString("hex")}`;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => resolve(Buffer.concat(parts)));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, override: { message?: string; param?: string | null; code?: string | null } = {}) {
  const base = ERRORS[status] ?? {
    message: `mock failure ${status}`,
    type: status >= 500 ? "server_error" : "invalid_request_error",
    code: null,
  };
  sendJson(res, status, {
    error: { message: override.message ?? base.message, type: base.type, param: override.param ?? null, code: override.code ?? base.code },
  });
}

/** Deterministic bytes for a video's variant: an MP4-like header, then the id repeated (about 200 KiB for the video). */
function bytesOf(id: string, variant: string): Buffer {
  const head = Buffer.from(
    variant === "video" ? "\x00\x00\x00\x18ftypmp42" : variant === "thumbnail" ? "RIFF\x00\x00\x00\x00WEBP" : "\xff\xd8\xff\xe0",
  );
  const repeat = variant === "video" ? 5000 : 50;
  return Buffer.concat([head, Buffer.from(`${id}:${variant};`.repeat(repeat))]);
}

export async function startVideoMock(options: VideoMockOptions = {}): Promise<VideoMock> {
  const requests: RecordedVideoRequest[] = [];
  const videos = new Map<string, MockVideo>();
  let failure: { status: number; left: number; raw?: { contentType: string; body: string } } | null = null;
  let url = "";

  const shown = (v: MockVideo) =>
    options.downloadUrls ? { ...v, download_url: `${url}/files/${v.id}.mp4?sig=${options.apiKey ?? ""}` } : v;

  function newVideo(fields: { model: string; prompt: string; seconds: string; size: string; remixOf?: string }): MockVideo {
    const video: MockVideo = {
      id: videoId(),
      object: "video",
      model: fields.model,
      status: "queued",
      progress: 0,
      created_at: nowSec(),
      completed_at: null,
      expires_at: null,
      prompt: fields.prompt,
      seconds: fields.seconds,
      size: fields.size,
      remixed_from_video_id: fields.remixOf ?? null,
      error: null,
    };
    videos.set(video.id, video);
    return video;
  }

  /** One GET's worth of work on a video. */
  function advance(v: MockVideo) {
    if (v.status === "queued") {
      v.status = "in_progress";
      v.progress = 42;
    } else if (v.status === "in_progress") {
      if (v.prompt.includes("[fail]")) {
        v.status = "failed";
        v.error = {
          code: "moderation_blocked",
          message: `Your request was blocked by our moderation system (see ${url}/policy, key ${options.apiKey ?? "none"}).`,
        };
      } else {
        v.status = "completed";
        v.progress = 100;
        v.completed_at = nowSec();
        v.expires_at = nowSec() + 3600;
      }
    }
  }

  function failing(res: ServerResponse): boolean {
    if (!failure || failure.left <= 0) return false;
    failure.left--;
    if (failure.raw) {
      res.writeHead(failure.status, { "content-type": failure.raw.contentType });
      res.end(failure.raw.body);
    } else sendError(res, failure.status);
    return true;
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const u = new URL(req.url ?? "/", "http://127.0.0.1");
    const bytes = await readBody(req);
    const contentType = String(req.headers["content-type"] ?? "");
    let json: Record<string, unknown> | undefined;
    let form: FormData | undefined;
    if (contentType.startsWith("multipart/form-data")) {
      form = await new Response(new Uint8Array(bytes), { headers: { "content-type": contentType } }).formData();
    } else if (bytes.length) {
      try {
        json = JSON.parse(bytes.toString("utf8"));
      } catch {
        json = undefined;
      }
    }
    const azure = u.pathname.startsWith("/openai/v1/videos");
    const prefix = azure ? "/openai/v1/videos" : "/v1/videos";
    const rest = u.pathname.startsWith(prefix) ? u.pathname.slice(prefix.length) : null;
    const [, id, action] = (rest ?? "").split("/");
    const method = req.method ?? "GET";
    const kind =
      rest === null
        ? "unknown"
        : rest === "" && method === "POST"
          ? "create"
          : id && !action && method === "GET"
            ? "retrieve"
            : id && action === "content" && method === "GET"
              ? "content"
              : id && action === "remix" && method === "POST"
                ? "remix"
                : "unknown";
    requests.push({
      method,
      path: u.pathname,
      query: u.searchParams,
      headers: req.headers,
      bytes,
      json,
      form,
      kind,
      surface: azure ? "azure" : "openai",
    });

    if (azure && u.searchParams.get("api-version") !== "preview") {
      return sendJson(res, 404, { error: { code: "404", message: "Resource not found" } });
    }
    if (options.apiKey !== undefined) {
      const auth = String(req.headers.authorization ?? "");
      const key = azure ? String(req.headers["api-key"] ?? "") : auth.startsWith("Bearer ") ? auth.slice(7) : "";
      if (key !== options.apiKey) return sendError(res, 401);
    }
    if (kind === "unknown") return sendError(res, 404, { message: `Invalid URL (${method} ${u.pathname})` });

    if (kind === "create") {
      if (failing(res)) return;
      const field = (name: string) => {
        const v = form ? form.get(name) : json?.[name];
        return typeof v === "string" ? v : v === undefined || v === null ? undefined : String(v);
      };
      const prompt = field("prompt");
      if (!prompt)
        return sendError(res, 400, {
          message: "Missing required parameter: 'prompt'.",
          param: "prompt",
          code: "missing_required_parameter",
        });
      const seconds = field("seconds") ?? "4";
      if (!SECONDS.includes(seconds)) {
        return sendError(res, 400, {
          message: `Invalid value: '${seconds}'. Supported values are: '4', '8', and '12'.`,
          param: "seconds",
          code: "invalid_value",
        });
      }
      const size = field("size") ?? "720x1280";
      if (!SIZES.includes(size)) return sendError(res, 400, { message: `Invalid value: '${size}'.`, param: "size", code: "invalid_value" });
      return sendJson(res, 200, shown(newVideo({ model: field("model") ?? "sora-2", prompt, seconds, size })));
    }

    const video = videos.get(id!);
    if (!video) return sendError(res, 404, { message: `Video with id '${id}' not found.`, code: "video_not_found" });

    if (kind === "retrieve") {
      advance(video);
      return sendJson(res, 200, shown(video));
    }
    if (kind === "remix") {
      if (failing(res)) return;
      if (video.status !== "completed") return sendError(res, 400, { message: "Only completed videos can be remixed." });
      const prompt = typeof json?.prompt === "string" ? json.prompt : "";
      if (!prompt) return sendError(res, 400, { message: "Missing required parameter: 'prompt'.", param: "prompt" });
      return sendJson(
        res,
        200,
        shown(newVideo({ model: video.model, prompt, seconds: video.seconds, size: video.size, remixOf: video.id })),
      );
    }
    // content
    const variant = u.searchParams.get("variant") ?? "video";
    if (!Object.hasOwn(VARIANTS, variant)) return sendError(res, 400, { message: `Invalid variant '${variant}'.`, param: "variant" });
    if (video.status !== "completed")
      return sendError(res, 404, { message: `Video '${video.id}' is not ready: its status is ${video.status}.` });
    const body = bytesOf(video.id, variant);
    res.writeHead(200, { "content-type": VARIANTS[variant]!, "content-length": String(body.length) });
    // In pieces, as a large file comes.
    for (let at = 0; at < body.length; at += 64 * 1024) res.write(body.subarray(at, at + 64 * 1024));
    res.end();
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, 500, { message: `mock crashed: ${String(err)}` });
      else res.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    requests,
    videos,
    failCreates(status, times = 1, raw) {
      failure = { status, left: times, raw };
    },
    contentOf(id, variant = "video") {
      return { type: VARIANTS[variant]!, bytes: bytesOf(id, variant) };
    },
    reset() {
      requests.length = 0;
      videos.clear();
      failure = null;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
