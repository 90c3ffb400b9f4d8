// OpenAI request → Workers AI `ai/run/{model}` input, for the modes Cloudflare's OpenAI-compatible
// endpoints (/ai/v1/chat/completions, /ai/v1/embeddings) do not cover. Pure.
import { RelayError } from "../../errors";
import { parseJsonObject } from "../../request/json-body";
import { readMultipartField, readMultipartFile } from "../../request/multipart";
import type { BuildRequestInput } from "../types";

/** Text-generation parameters Workers AI accepts; anything else would fail its input schema. */
const RUN_TEXT_FIELDS = [
  "max_tokens",
  "temperature",
  "top_p",
  "top_k",
  "seed",
  "frequency_penalty",
  "presence_penalty",
  "repetition_penalty",
  "raw",
] as const;

/** `/v1/completions` body → `{prompt, stream, …}`. One prompt only (Workers AI has no batch). */
export function toRunCompletionBody(input: BuildRequestInput): string {
  const json = input.json ?? parseJsonObject(input.body);
  let prompt = json.prompt;
  if (Array.isArray(prompt) && prompt.length === 1) prompt = prompt[0];
  if (typeof prompt !== "string") {
    throw new RelayError(400, "this channel accepts a single string prompt", {
      type: "invalid_request_error",
      code: "invalid_prompt",
      param: "prompt",
    });
  }
  const out: Record<string, unknown> = { prompt };
  for (const k of RUN_TEXT_FIELDS) if (json[k] !== undefined && json[k] !== null) out[k] = json[k];
  if (input.stream) out.stream = true;
  return JSON.stringify(out);
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/**
 * Multipart transcription → Workers AI input. `@cf/openai/whisper` and `whisper-tiny-en` take the
 * raw audio bytes; `whisper-large-v3-turbo` takes JSON with base64 audio (+ language, prompt).
 */
export function toRunTranscriptionBody(input: BuildRequestInput): { body: Uint8Array | string; contentType: string } {
  const bytes = typeof input.body === "string" ? new TextEncoder().encode(input.body) : input.body;
  const file = readMultipartFile(bytes, input.contentType, "file");
  if (!file || file.data.length === 0) {
    throw new RelayError(400, "multipart field 'file' is required", { type: "invalid_request_error", code: "missing_file", param: "file" });
  }
  if (input.upstreamModel.includes("whisper-large-v3-turbo")) {
    const body: Record<string, unknown> = { audio: base64(file.data) };
    const language = readMultipartField(bytes, input.contentType, "language");
    const prompt = readMultipartField(bytes, input.contentType, "prompt");
    if (language) body.language = language;
    if (prompt) body.initial_prompt = prompt;
    return { body: JSON.stringify(body), contentType: "application/json" };
  }
  return { body: file.data, contentType: "application/octet-stream" };
}
