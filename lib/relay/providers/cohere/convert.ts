// OpenAI chat ⇄ Cohere's Chat API v2 (`POST /v2/chat`), and Jina/OpenAI-style rerank ⇄ Cohere's
// `POST /v1/rerank`. v2 rather than v1: its messages, roles and tools are OpenAI's shapes, so a
// conversation with tool calls converts without loss, and its stream is server-sent events.
// Pure (ids and timestamps come from the caller).
import { isObj, type Obj } from "@/lib/obj";
import {
  type AnswerContext,
  chatChunk,
  chatCompletion,
  embeddingList,
  embeddingTexts,
  num,
  openAIErrorBody,
  openAIUsage,
} from "../convert-shared";
import type { RequestMessage } from "../flat-chat";
import { countUnknownEvent } from "../unknown-events";
import { CohereChat, type CohereEvent, CohereEmbed, CohereRerank } from "./api";

/** Canonical request → Cohere v2 chat body. */
export function toCohereChat(json: Obj, messages: readonly RequestMessage[], model: string, stream: boolean): Obj {
  const out: Obj = { model, messages: messages.map(toCohereMessage), stream };
  const maxTokens = json.max_completion_tokens ?? json.max_tokens;
  if (typeof maxTokens === "number") out.max_tokens = maxTokens;
  if (typeof json.stop === "string") out.stop_sequences = [json.stop];
  else if (Array.isArray(json.stop)) out.stop_sequences = json.stop;
  if (typeof json.temperature === "number") out.temperature = json.temperature;
  if (typeof json.top_p === "number") out.p = json.top_p;
  if (typeof json.top_k === "number") out.k = json.top_k;
  for (const k of ["seed", "frequency_penalty", "presence_penalty"] as const) if (typeof json[k] === "number") out[k] = json[k];
  if (Array.isArray(json.tools) && json.tools.length > 0) out.tools = json.tools;
  if (json.tool_choice === "required" || json.tool_choice === "none") out.tool_choice = json.tool_choice.toUpperCase();
  const rf = json.response_format;
  if (isObj(rf) && rf.type === "json_object") out.response_format = { type: "json_object" };
  else if (isObj(rf) && rf.type === "json_schema" && isObj(rf.json_schema)) {
    out.response_format = { type: "json_object", json_schema: rf.json_schema.schema };
  }
  return out;
}

function toCohereMessage(m: RequestMessage): Obj {
  switch (m.role) {
    case "system":
    case "developer":
      return { role: "system", content: m.text };
    case "assistant": {
      const out: Obj = { role: "assistant" };
      if (Array.isArray(m.raw.tool_calls) && m.raw.tool_calls.length > 0) out.tool_calls = m.raw.tool_calls;
      if (m.text !== "" || !out.tool_calls) out.content = m.text;
      return out;
    }
    case "tool":
      return { role: "tool", tool_call_id: typeof m.raw.tool_call_id === "string" ? m.raw.tool_call_id : "", content: m.text };
    default:
      if (m.images.length === 0) return { role: "user", content: m.text };
      return {
        role: "user",
        content: [
          ...(m.text !== "" ? [{ type: "text", text: m.text }] : []),
          ...m.images.map((url) => ({ type: "image_url", image_url: { url } })),
        ],
      };
  }
}

const FINISH: Record<string, string> = {
  COMPLETE: "stop",
  STOP_SEQUENCE: "stop",
  MAX_TOKENS: "length",
  TOOL_CALL: "tool_calls",
  ERROR_TOXIC: "content_filter",
};
const finishOf = (reason: unknown): string => FINISH[typeof reason === "string" ? reason : ""] ?? "stop";

/** Cohere's usage → OpenAI's: the billed units (what Cohere charges), else the raw token counts. */
export function cohereUsage(usage: unknown): Obj | null {
  if (!isObj(usage)) return null;
  const units = isObj(usage.billed_units) ? usage.billed_units : isObj(usage.tokens) ? usage.tokens : null;
  if (!units) return null;
  return openAIUsage(num(units.input_tokens) ?? 0, num(units.output_tokens) ?? 0);
}

/** A v2 chat answer → `chat.completion`. */
export function cohereChatToOpenAI(upstream: unknown, ids: AnswerContext): Obj {
  const parsed = CohereChat.safeParse(upstream);
  const r = parsed.success ? parsed.data : {};
  const msg = r.message ?? {};
  const text = msg.content
    ? msg.content
        .filter((c): c is Obj => isObj(c) && c.type === "text")
        .map((c) => String(c.text ?? ""))
        .join("")
    : "";
  const message: Obj = { content: text };
  if (msg.tool_calls && msg.tool_calls.length > 0) {
    message.tool_calls = msg.tool_calls.flatMap((t) =>
      t
        ? [
            {
              id: t.id,
              type: "function",
              function: { name: t.function ? t.function.name : "", arguments: t.function ? (t.function.arguments ?? "") : "" },
            },
          ]
        : [],
    );
  }
  return chatCompletion(ids, message, finishOf(r.finish_reason), cohereUsage(r.usage));
}

/** Per call: v2 stream events → chunks. */
export class CohereStream {
  private tool = -1;
  constructor(private readonly ids: AnswerContext) {}

  event(event: unknown): Obj | null {
    if (!isObj(event)) return null;
    const data: CohereEvent = event;
    const delta = isObj(data.delta) ? data.delta : {};
    const message = isObj(delta.message) ? delta.message : {};
    switch (data.type) {
      case "message-start":
        return chatChunk(this.ids, { role: "assistant", content: "" });
      case "content-delta": {
        const content = isObj(message.content) ? message.content.text : undefined;
        return typeof content === "string" && content !== "" ? chatChunk(this.ids, { content }) : null;
      }
      case "tool-call-start": {
        const call = isObj(message.tool_calls) ? message.tool_calls : {};
        const fn = isObj(call.function) ? call.function : {};
        this.tool++;
        return chatChunk(this.ids, {
          tool_calls: [{ index: this.tool, id: call.id, type: "function", function: { name: fn.name, arguments: fn.arguments ?? "" } }],
        });
      }
      case "tool-call-delta": {
        const call = isObj(message.tool_calls) ? message.tool_calls : {};
        const args = isObj(call.function) ? call.function.arguments : undefined;
        if (typeof args !== "string" || args === "") return null;
        return chatChunk(this.ids, { tool_calls: [{ index: Math.max(this.tool, 0), function: { arguments: args } }] });
      }
      case "message-end":
        return chatChunk(this.ids, {}, finishOf(delta.finish_reason), cohereUsage(delta.usage));
      case "content-start":
      case "content-end":
      case "tool-plan-delta":
      case "tool-call-end":
      case "citation-start":
      case "citation-end":
        return null;
      default:
        countUnknownEvent("cohere", String(data.type));
        return null;
    }
  }
}

/** Jina/OpenAI-style rerank request → Cohere v1 rerank body. */
export function toCohereRerank(json: Obj, model: string): Obj {
  const out: Obj = { model, query: json.query, documents: json.documents };
  if (typeof json.top_n === "number") out.top_n = json.top_n;
  if (typeof json.return_documents === "boolean") out.return_documents = json.return_documents;
  if (typeof json.max_chunks_per_doc === "number") out.max_chunks_per_doc = json.max_chunks_per_doc;
  return out;
}

/**
 * Cohere's rerank answer → the relay's rerank shape (Jina's): `results` as they are, the model,
 * and `meta` kept (Cohere bills search units, not tokens, so the prompt is counted locally).
 */
export function cohereRerankToOpenAI(upstream: unknown, model: string): Obj {
  const parsed = CohereRerank.safeParse(upstream);
  const r = parsed.success ? parsed.data : {};
  const out: Obj = { id: r.id, model, results: r.results ?? [] };
  if (r.meta) out.meta = r.meta;
  return out;
}

/**
 * An OpenAI embeddings request → Cohere's v2 embed body: `texts`, `input_type` (the caller's own
 * `input_type` when given, else "search_document"), float vectors.
 */
export function toCohereEmbed(json: Obj, model: string): Obj {
  const inputType = typeof json.input_type === "string" && json.input_type !== "" ? json.input_type : "search_document";
  const out: Obj = { model, texts: embeddingTexts(json.input), input_type: inputType, embedding_types: ["float"] };
  if (typeof json.dimensions === "number") out.output_dimension = json.dimensions;
  return out;
}

/** Cohere's `{embeddings: {float: [[…]]}, meta: {billed_units: {input_tokens}}}` → OpenAI's list. */
export function cohereEmbedToOpenAI(upstream: unknown, model: string, base64: boolean): Obj {
  const parsed = CohereEmbed.safeParse(upstream);
  const r = parsed.success ? parsed.data : {};
  const vectors = r.embeddings?.float;
  if (!vectors) return openAIErrorBody(r.message ?? "Cohere returned no float embeddings", null);
  return embeddingList(vectors as number[][], model, r.meta?.billed_units?.input_tokens ?? 0, base64);
}
