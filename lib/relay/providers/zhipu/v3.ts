// Zhipu ChatGLM v3 (type 16, the legacy API): `POST {base}/api/paas/v3/model-api/{model}/invoke`
// answers `{code, msg, success, data:{choices, usage, task_id}}`; `/sse-invoke` streams events
// `add` (a piece of raw text), `finish` (with a `meta:` line holding the usage), `error` and
// `interrupted`. The request is `{prompt:[{role, content}], temperature, top_p, incremental}`.
// Pure converters, the stream framing, and the adapter.
import { CHANNEL_CATALOG, CHANNEL_TYPES as T } from "@/lib/channels/catalog";
import { isObj, type Obj } from "@/lib/obj";
import { baseUrlOf, encodeModelForPath, unsupportedMode } from "../openai-compatible";
import {
  type AnswerContext,
  alternatingTurns,
  answerContext,
  canonicalBody,
  chatChunk,
  chatCompletion,
  clampOpen,
  jsonAnswer,
  num,
  openAIErrorBody,
  openAIUsage,
  plainMessages,
  str,
} from "../convert-shared";
import type { BuildRequestInput, ProviderAdapter, ResponseConverter, StreamFraming, UpstreamRequest } from "../types";
import type { EventSink } from "../../openai/sse";
import { countUnknownEvent } from "../unknown-events";
import { ZhipuV3Answer } from "./api";
import { zhipuToken } from "./token";

/** The canonical request → v3's body. v3 has no system role: it opens the first user turn. */
export function toZhipuV3Body(body: Obj, stream: boolean): Obj {
  const { system, turns } = alternatingTurns(plainMessages(body));
  if (system) turns[0] = { role: "user", content: turns[0]!.content ? `${system}\n\n${turns[0]!.content}` : system };
  const out: Obj = { prompt: turns };
  const temperature = clampOpen(num(body.temperature), 0, 1.01);
  if (temperature !== undefined) out.temperature = Math.min(temperature, 1);
  const topP = clampOpen(num(body.top_p), 0, 1);
  if (topP !== undefined) out.top_p = topP;
  if (stream) out.incremental = true;
  return out;
}

function usageOf(u: unknown): Obj | undefined {
  if (!isObj(u)) return undefined;
  const p = num(u.prompt_tokens) ?? 0;
  const c = num(u.completion_tokens) ?? 0;
  return openAIUsage(p, c, num(u.total_tokens));
}

/** v3 wraps answers in quotes with escaped newlines (`"\"Hi\\n\""`): unwrap them. */
function unquote(s: string): string {
  if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) {
    try {
      const v: unknown = JSON.parse(s);
      if (typeof v === "string") return v;
    } catch {
      /* not a JSON string: keep the quotes off only */
    }
    return s.slice(1, -1);
  }
  return s;
}

/** `{code, msg, success, data}` → a chat.completion, or OpenAI's error when code is not 200. */
export function zhipuV3ToOpenAI(upstream: unknown, ctx: AnswerContext): Obj {
  const parsed = ZhipuV3Answer.safeParse(upstream);
  if (!parsed.success) return openAIErrorBody("智谱返回了无法识别的应答", null);
  const answer = parsed.data;
  if (answer.code !== 200 || answer.success === false) {
    return openAIErrorBody(answer.msg ?? "智谱返回了错误", num(answer.code) ?? str(answer.code) ?? null);
  }
  const { data } = answer;
  const content = data.choices.map((c) => (c ? unquote(c.content) : "")).join("");
  return chatCompletion({ ...ctx, id: data.task_id || ctx.id }, content, "stop", usageOf(data.usage));
}

/** One framed v3 event (see zhipuV3Framing) → a chunk, an error object, or null. */
export function zhipuV3EventToOpenAI(event: unknown, ctx: AnswerContext): Obj | null {
  if (!isObj(event)) return null;
  const text = str(event.data) ?? "";
  switch (event.event) {
    case "add":
      return text === "" ? null : chatChunk(ctx, { role: "assistant", content: text }, null);
    case "finish": {
      const meta = isObj(event.meta) ? event.meta : {};
      return chatChunk(ctx, text === "" ? {} : { content: text }, "stop", usageOf(meta.usage));
    }
    case "error":
    case "interrupted":
      return openAIErrorBody(text || `智谱流式应答中断（${event.event}）`, event.event);
    default:
      // A plain JSON body instead of a stream: `{code, msg, success:false}`.
      if (event.event === undefined && (event.code !== undefined || event.success !== undefined)) {
        return openAIErrorBody(str(event.msg) ?? "智谱返回了错误", num(event.code) ?? null);
      }
      countUnknownEvent("zhipu", String(event.event));
      return null;
  }
}

/**
 * v3's stream → `{"event", "data", "meta"}` events. Its `data:` lines are raw text (not JSON;
 * several lines of one event are joined by "\n"), and `finish` carries a `meta:` line with JSON.
 * A body that is one JSON object (an error answered instead of a stream) becomes one event.
 */
export function zhipuV3Framing(): StreamFraming {
  const decoder = new TextDecoder();
  let buffer = "";
  let jsonBody: string | null = null;

  const emit = (block: string, out: EventSink): void => {
    let event: string | undefined;
    const data: string[] = [];
    let meta: unknown;
    for (const line of block.split(/\r?\n/)) {
      const colon = line.indexOf(":");
      if (colon <= 0) continue;
      const field = line.slice(0, colon);
      let value = line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
      else if (field === "meta") {
        try {
          meta = JSON.parse(value);
        } catch {
          meta = undefined;
        }
      }
    }
    if (event === undefined && data.length === 0) return;
    out.event(JSON.stringify({ event: event ?? "add", data: data.join("\n"), meta }));
  };

  const drain = (final: boolean, out: EventSink): void => {
    for (;;) {
      const m = /\r?\n\r?\n/.exec(buffer);
      if (!m) break;
      emit(buffer.slice(0, m.index), out);
      buffer = buffer.slice(m.index + m[0].length);
    }
    if (final && buffer.trim() !== "") {
      emit(buffer, out);
      buffer = "";
    }
  };

  return {
    push(chunk, out) {
      const text = decoder.decode(chunk, { stream: true });
      if (jsonBody !== null) {
        jsonBody += text;
        return;
      }
      if (buffer === "" && text.trimStart().startsWith("{")) {
        jsonBody = text;
        return;
      }
      buffer += text;
      drain(false, out);
    },
    end(out) {
      const rest = decoder.decode();
      if (jsonBody !== null) {
        out.event((jsonBody + rest).replace(/\r?\n/g, " "));
        return;
      }
      buffer += rest;
      drain(true, out);
    },
  };
}

export const zhipuV3: ProviderAdapter = {
  supportedModes: new Set(["chat"]),
  buildRequest(input: BuildRequestInput): UpstreamRequest {
    const { name, baseUrl } = CHANNEL_CATALOG[T.Zhipu];
    if (input.mode !== "chat") throw unsupportedMode(name, input.channel.type, input.mode);
    const body = JSON.stringify(toZhipuV3Body(canonicalBody(input), input.stream));
    const base = baseUrlOf(input, baseUrl, name);
    const url = `${base}/api/paas/v3/model-api/${encodeModelForPath(input.upstreamModel)}/${input.stream ? "sse-invoke" : "invoke"}`;
    const headers: Record<string, string> = { "Content-Type": "application/json", Authorization: zhipuToken(input.channel.key) };
    if (input.stream) headers.Accept = "text/event-stream";
    const ctx = answerContext(input.upstreamModel);
    const response: ResponseConverter = {
      json: (upstream) => jsonAnswer(zhipuV3ToOpenAI(upstream, ctx)),
      streamEvent: (event) => zhipuV3EventToOpenAI(event, ctx),
    };
    return {
      method: "POST",
      url,
      headers,
      body,
      forcedIncludeUsage: false,
      response,
      framing: input.stream ? zhipuV3Framing() : undefined,
    };
  },
};
