// A client's `POST /v1/videos`, JSON or multipart/form-data (an `input_reference` file), read for
// what routing and billing need and checked before anything is charged; then forwarded as it came,
// only its `model` set to the channel's.
import type { OptionValues } from "@/lib/options";
import type { RelayRequest } from "@/lib/relay/http";
import { readMultipartForm, setMultipartField } from "@/lib/relay/request/multipart";
import { patchJsonBody } from "@/lib/relay/request/json-body";
import { parseJsonRequest } from "@/lib/relay/request/request-body";
import { invalidRequest, requestModel } from "@/lib/relay/request/request-rules";
import { findSensitiveWord, matcherFor, promptCheckEnabled, sensitiveWordError } from "@/lib/relay/request/sensitive";

/** OpenAI's defaults: `model` sora-2, `seconds` 4. */
export const DEFAULT_VIDEO_MODEL = "sora-2";
export const DEFAULT_VIDEO_SECONDS = 4;
/** The clip lengths the API accepts (seconds); a video is billed per second. */
export const VIDEO_SECONDS: readonly number[] = [4, 8, 12];

export type VideoRequest = {
  model: string;
  prompt: string;
  seconds: number;
  /** "720x1280"…; "" when the client left it to the vendor. */
  size: string;
  /** The parsed body of a JSON request; null for multipart. */
  json: Record<string, unknown> | null;
  /** The client's content type (a multipart body's boundary is in it). */
  contentType: string;
};

const SIZE = /^[1-9]\d{1,4}x[1-9]\d{1,4}$/;

/** `prompt` (required) as a remix or a create sends it: a non-empty string. */
export function promptOf(body: Readonly<Record<string, unknown>>): string {
  const prompt = body.prompt;
  if (typeof prompt !== "string" || prompt.trim() === "") throw invalidRequest("prompt", "prompt 必须是非空字符串");
  return prompt;
}

/** The sensitive-word filter on the prompt, when prompts are checked: a hit is a 400 and costs nothing. */
export function checkVideoPrompt(options: OptionValues, prompt: string): void {
  if (!promptCheckEnabled(options)) return;
  const word = findSensitiveWord({ prompt }, matcherFor(options.SensitiveWords as string));
  if (word !== null) throw sensitiveWordError(word);
}

function secondsOf(v: unknown): number {
  if (v === undefined || v === null) return DEFAULT_VIDEO_SECONDS;
  const n = typeof v === "string" && /^\d+$/.test(v.trim()) ? Number(v) : v;
  if (typeof n !== "number" || !VIDEO_SECONDS.includes(n))
    throw invalidRequest("seconds", `seconds 必须是 ${VIDEO_SECONDS.join("、")} 之一`);
  return n;
}

function sizeOf(v: unknown): string {
  if (v === undefined || v === null) return "";
  if (typeof v !== "string" || !SIZE.test(v)) throw invalidRequest("size", "size 必须是「宽x高」，如 720x1280");
  return v;
}

/** A body's fields: its JSON object (also given as `json`), or a multipart form's text fields. */
export function bodyFields(req: RelayRequest): { fields: Readonly<Record<string, unknown>>; json: Record<string, unknown> | null } {
  const contentType = req.headers.get("content-type") ?? "";
  if (!/^\s*multipart\/form-data/i.test(contentType)) {
    const json = parseJsonRequest(req.body);
    return { fields: json, json };
  }
  const form = readMultipartForm(req.body, contentType);
  if (!form) throw invalidRequest("", "请求体不是合法的 multipart/form-data");
  return { fields: form.fields, json: null };
}

/** The create request's fields; OpenAI's 400 for a body that could never be accepted. */
export function readVideoRequest(req: RelayRequest, options: OptionValues): VideoRequest {
  const { fields, json } = bodyFields(req);
  const video: VideoRequest = {
    model: requestModel(fields, DEFAULT_VIDEO_MODEL),
    prompt: promptOf(fields),
    seconds: secondsOf(fields.seconds),
    size: sizeOf(fields.size),
    json,
    contentType: req.headers.get("content-type") ?? "",
  };
  checkVideoPrompt(options, video.prompt);
  return video;
}

/** The body for the vendor: the client's, its `model` set to `model` (added when the client left it out). */
export function forwardBody(req: RelayRequest, video: VideoRequest, model: string): Uint8Array {
  if (video.json) return patchJsonBody(req.body, { model }, { parsed: video.json }).body;
  return setMultipartField(req.body, video.contentType, "model", model);
}
