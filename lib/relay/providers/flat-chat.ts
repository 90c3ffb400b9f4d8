// Small pieces shared by the adapters whose vendors take a chat in their own shape (Spark, Cohere,
// Dify, AI Proxy's knowledge base): reading the canonical request's messages, and writing the
// OpenAI answer and stream chunks they convert back into. Pure.
import { newRequestId, RelayError } from "../errors";
import { parseJsonObject } from "../json-body";
import type { BuildRequestInput } from "./types";

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
export const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

export interface ChatMessage {
  role: string;
  /** The message's text (text parts joined; images and other parts left out). */
  text: string;
  /** Image URLs of `image_url` parts. */
  images: string[];
  raw: Obj;
}

/** The request's JSON and its messages; 400 when there are none. */
export function chatRequest(input: BuildRequestInput): { json: Obj; messages: ChatMessage[] } {
  const json = input.json ?? parseJsonObject(input.body);
  const list = Array.isArray(json.messages) ? json.messages : [];
  const messages: ChatMessage[] = [];
  for (const m of list) {
    if (!isObj(m)) continue;
    const { text, images } = contentParts(m.content);
    messages.push({ role: typeof m.role === "string" ? m.role : "user", text, images, raw: m });
  }
  if (messages.length === 0) {
    throw new RelayError(400, "messages must be a non-empty array", {
      type: "invalid_request_error",
      code: "invalid_messages",
      param: "messages",
    });
  }
  return { json, messages };
}

function contentParts(content: unknown): { text: string; images: string[] } {
  if (typeof content === "string") return { text: content, images: [] };
  const texts: string[] = [];
  const images: string[] = [];
  if (Array.isArray(content)) {
    for (const part of content) {
      if (!isObj(part)) continue;
      if (part.type === "text" && typeof part.text === "string") texts.push(part.text);
      else if (part.type === "image_url") {
        const url = isObj(part.image_url) ? part.image_url.url : part.image_url;
        if (typeof url === "string" && url !== "") images.push(url);
      }
    }
  }
  return { text: texts.join("\n"), images };
}

/** The whole conversation as one text ("SYSTEM: …\nUSER: …\nASSISTANT: …") for single-query vendors. */
export function transcript(messages: readonly ChatMessage[]): string {
  if (messages.length === 1 && messages[0]!.role === "user") return messages[0]!.text;
  return messages.map((m) => `${m.role.toUpperCase()}: ${m.text}`).join("\n");
}

/** The ids and model an answer and its chunks carry. */
export class AnswerIds {
  readonly id = `chatcmpl-${newRequestId()}`;
  readonly created = Math.floor(Date.now() / 1000);
  constructor(readonly model: string) {}
}

export function openAIUsage(prompt: number, completion: number): Obj {
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** A `chat.completion` with one choice. */
export function completion(ids: AnswerIds, message: Obj, finishReason: string, usage?: Obj | null): Obj {
  const out: Obj = {
    id: ids.id,
    object: "chat.completion",
    created: ids.created,
    model: ids.model,
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finishReason }],
  };
  if (usage) out.usage = usage;
  return out;
}

/** A `chat.completion.chunk`; `delta` null with a usage gives the usage-only chunk (`choices: []`). */
export function chunk(ids: AnswerIds, delta: Obj | null, finishReason: string | null = null, usage?: Obj | null): Obj {
  const out: Obj = {
    id: ids.id,
    object: "chat.completion.chunk",
    created: ids.created,
    model: ids.model,
    choices: delta ? [{ index: 0, delta, finish_reason: finishReason }] : [],
  };
  if (usage) out.usage = usage;
  return out;
}

/** OpenAI's error body, which the pipeline treats as a failed attempt (a vendor's 200-with-error). */
export function errorAnswer(message: string, code: string | number | null, type = "upstream_error"): Obj {
  return { error: { message, type, code } };
}

/** A converter's `json()` result. */
export function jsonAnswer(body: Obj): { body: string; contentType: string } {
  return { body: JSON.stringify(body), contentType: "application/json" };
}
