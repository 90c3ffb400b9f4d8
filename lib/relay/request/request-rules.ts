// What a request must carry to be valid for its endpoint (OpenAI's API reference: the required
// parameters and their types). A request that breaks these could never succeed upstream, so it
// is refused with OpenAI's 400 before any reservation or upstream call. The checks read members
// of the body the pipeline has already parsed: nothing is parsed or copied again, and members
// Qiao does not know are not looked at (they pass through untouched).
import { isObj } from "@/lib/obj";
import { RelayError } from "../errors";
import type { RelayMode } from "../types";

type Body = Readonly<Record<string, unknown>>;

export function invalidRequest(param: string, message: string): RelayError {
  return new RelayError(400, message, { type: "invalid_request_error", code: "invalid_request", param });
}

const isNonEmptyString = (v: unknown): v is string => typeof v === "string" && v !== "";
const isNonEmptyArray = (v: unknown): v is unknown[] => Array.isArray(v) && v.length > 0;

/**
 * The model a JSON body names: absent means the endpoint's default (`fallback`, "" when it has
 * none); anything but a non-empty string is refused.
 */
export function requestModel(body: Body, fallback: string): string {
  const model = body.model;
  if (model === undefined) {
    if (fallback === "")
      throw new RelayError(400, "请求中缺少 model 字段", { type: "invalid_request_error", code: "model_required", param: "model" });
    return fallback;
  }
  if (!isNonEmptyString(model)) throw invalidRequest("model", "model 必须是非空字符串");
  return model;
}

function checkMessages(messages: unknown): void {
  if (!isNonEmptyArray(messages)) throw invalidRequest("messages", "messages 必须是非空数组");
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Record<string, unknown>;
    if (!isObj(m) || !isNonEmptyString(m.role)) throw invalidRequest(`messages[${i}]`, `messages[${i}] 必须是带 role 字段的对象`);
  }
}

/** OpenAI's upper bounds of `n`: choices per chat or completions request, images per request. */
const MAX_CHOICES = 128;
const MAX_IMAGES = 10;

/** An optional count (`n`, `max_tokens`): absent or null, else a whole number in [1, max]. */
function checkCount(body: Body, param: string, max: number): void {
  const v = body[param];
  if (v === undefined || v === null) return;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 1 || v > max) {
    throw invalidRequest(param, max === Number.MAX_SAFE_INTEGER ? `${param} 必须是正整数` : `${param} 必须是 1 到 ${max} 之间的整数`);
  }
}

/** A text input: a string (non-empty when `nonEmpty`) or a non-empty array (of texts, token ids…). */
function isTextInput(v: unknown, nonEmpty: boolean): boolean {
  return typeof v === "string" ? !nonEmpty || v !== "" : isNonEmptyArray(v);
}

/** Throws OpenAI's 400 when the JSON body lacks what its endpoint requires. */
export function checkRequestBody(mode: RelayMode, body: Body): void {
  const stream = body.stream;
  if (stream !== undefined && stream !== null && typeof stream !== "boolean") throw invalidRequest("stream", "stream 必须是布尔值");
  switch (mode) {
    case "chat":
      checkMessages(body.messages);
      checkCount(body, "n", MAX_CHOICES);
      checkCount(body, "max_tokens", Number.MAX_SAFE_INTEGER);
      checkCount(body, "max_completion_tokens", Number.MAX_SAFE_INTEGER);
      return;
    case "completions":
      if (!isTextInput(body.prompt, false)) throw invalidRequest("prompt", "prompt 必须是字符串或非空数组");
      checkCount(body, "n", MAX_CHOICES);
      checkCount(body, "max_tokens", Number.MAX_SAFE_INTEGER);
      return;
    case "embeddings":
      if (!isTextInput(body.input, true)) throw invalidRequest("input", "input 必须是非空字符串或非空数组");
      return;
    case "moderations":
      if (!isTextInput(body.input, false)) throw invalidRequest("input", "input 必须是字符串或非空数组");
      return;
    case "images":
      if (!isNonEmptyString(body.prompt)) throw invalidRequest("prompt", "prompt 必须是非空字符串");
      checkCount(body, "n", MAX_IMAGES);
      return;
    case "speech":
      if (!isNonEmptyString(body.input)) throw invalidRequest("input", "input 必须是非空字符串");
      return;
    case "rerank":
      if (!isNonEmptyString(body.query)) throw invalidRequest("query", "query 必须是非空字符串");
      if (!isNonEmptyArray(body.documents)) throw invalidRequest("documents", "documents 必须是非空数组");
      return;
    case "transcriptions":
    case "translations":
      return; // multipart: checked where the form is read
  }
}
