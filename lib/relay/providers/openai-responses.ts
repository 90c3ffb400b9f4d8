// OpenAI's Responses API served natively: a caller of `POST /v1/responses` (inbound protocol
// "openai-responses") on a channel whose upstream has the same API (OpenAI, Azure) gets its
// request sent up as it came, only `model` mapped, and the answer back as the upstream sent it.
// The relay reads that answer through `responsesReader`, which turns a Response object or its
// events into the OpenAI chat shapes the pipeline reads usage, errors and first-token time from.
//
// The caller's headers that go up with it (CALLER_HEADERS, CALLER_HEADER_PREFIXES), because
// OpenAI's own clients send them and OpenAI reads them:
// - Codex CLI's session headers, which OpenAI routes a conversation's turns to the same prompt
//   cache by: `session-id` and `thread-id` since 0.17x (0.171.0 sends both, the same UUID as its
//   `x-client-request-id`), `session_id` and `conversation_id` before; `originator` and `version`
//   (which client, which release);
// - every `x-codex-*` header (0.171.0: `x-codex-turn-metadata`, `x-codex-window-id`,
//   `x-codex-beta-features`; its binary names some twenty more, from parent thread to routing
//   hints) and `x-openai-internal-codex-*` (`x-openai-internal-codex-responses-lite: true`, which
//   Codex sends with the "lite" body whose tools come as an `additional_tools` input item rather
//   than `tools`). They describe the request to OpenAI's Codex backend and nothing else; by
//   prefix, because each release adds some and a missing one changes how OpenAI reads the body.
//   Only Codex's own families: no other `x-openai-*` header goes up;
// - `openai-beta` (opt-ins such as `responses=experimental`), `user-agent`, `x-client-request-id`
//   (the caller's own trace id, echoed in OpenAI's logs), and the official SDKs' `x-stainless-*`
//   (language, runtime and retry count).
// Never forwarded: the caller's credentials (`authorization`, `api-key`: the channel's key goes
// instead), cookies, and `openai-organization` / `openai-project`, which name the account of a key
// and would not match the channel's (the channel's own organization is set by its builder).
import { isObj, type Obj } from "@/lib/obj";
import { patchJsonBody } from "../request/json-body";
import { type AnswerContext, chatChunk, chatCompletion } from "./convert-shared";
import type { BuildRequestInput, ResponseConverter, UpstreamRequest } from "./types";
import { ResponseObject } from "./openai-responses-api";
import { countUnknownEvent } from "./unknown-events";

/** The text deltas' chunks: the relay reads only their content. */
const NO_CONTEXT: AnswerContext = { id: "", created: 0, model: "" };

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** The caller's headers sent on to the vendor (see the header of this file for why each). */
export const CALLER_HEADERS = [
  "session_id",
  "conversation_id",
  "originator",
  "version",
  "openai-beta",
  "user-agent",
  "x-client-request-id",
  "x-stainless-lang",
  "x-stainless-package-version",
  "x-stainless-os",
  "x-stainless-arch",
  "x-stainless-runtime",
  "x-stainless-runtime-version",
  "x-stainless-retry-count",
  "x-stainless-timeout",
  "x-stainless-helper-method",
  "session-id",
  "thread-id",
] as const;

/** Families of the caller's headers sent on by prefix (see the header of this file). */
export const CALLER_HEADER_PREFIXES = ["x-codex-", "x-openai-internal-codex-"] as const;

/** The caller's Responses request for `url`, with `model` set; the answer passes through. */
export function responsesPassthrough(
  input: BuildRequestInput,
  url: string,
  auth: Record<string, string>,
  model = input.upstreamModel,
): UpstreamRequest {
  const { body } = patchJsonBody(input.body, { model }, { parsed: input.json });
  const headers: Record<string, string> = {};
  const caller = input.callerHeaders;
  const names = new Set<string>(CALLER_HEADERS);
  for (const name of caller?.keys?.() ?? []) {
    const lower = name.toLowerCase();
    if (CALLER_HEADER_PREFIXES.some((prefix) => lower.startsWith(prefix))) names.add(lower);
  }
  for (const name of names) {
    const value = caller?.get(name);
    if (value) headers[name] = value;
  }
  // The channel's credentials and the body's type last: nothing the caller sent replaces them.
  Object.assign(headers, { "Content-Type": "application/json" }, auth);
  if (input.stream) headers.Accept = "text/event-stream";
  return { method: "POST", url, headers, body, forcedIncludeUsage: false, response: responsesReader(), passthrough: true };
}

/** A Responses `usage` → chat's (`input_tokens` already counts the cached ones, as `prompt_tokens` does). */
export function chatUsage(usage: unknown): Obj | undefined {
  if (!isObj(usage)) return undefined;
  const input = num(usage.input_tokens);
  const output = num(usage.output_tokens);
  const inDetails = isObj(usage.input_tokens_details) ? usage.input_tokens_details : {};
  const outDetails = isObj(usage.output_tokens_details) ? usage.output_tokens_details : {};
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    prompt_tokens_details: { cached_tokens: num(inDetails.cached_tokens) },
    completion_tokens_details: { reasoning_tokens: num(outDetails.reasoning_tokens) },
  };
}

/** A Response's error (`status: "failed"`) or an `error` event → OpenAI's error object. */
function openAIError(error: unknown, fallback: string): Obj {
  const e = isObj(error) ? error : {};
  return {
    error: {
      message: typeof e.message === "string" && e.message !== "" ? e.message : fallback,
      type: typeof e.type === "string" ? e.type : "upstream_error",
      code: typeof e.code === "string" || typeof e.code === "number" ? e.code : null,
    },
  };
}

function finishReason(response: Obj, calls: boolean): string {
  if (response.status === "incomplete") {
    const reason = isObj(response.incomplete_details) ? response.incomplete_details.reason : undefined;
    return reason === "content_filter" ? "content_filter" : "length";
  }
  return calls ? "tool_calls" : "stop";
}

/** A whole Response object → a chat.completion carrying its text, function calls and usage. */
function completionOfResponse(upstream: Obj): Obj {
  // Never fails: every field is optional and forgiving (openai-responses-api.ts).
  const response = ResponseObject.parse(upstream);
  let text = "";
  const toolCalls: Obj[] = [];
  for (const item of response.output) {
    if (item?.type === "message") {
      for (const part of item.content) if (part) text += part.text;
    } else if (item?.type === "function_call") {
      toolCalls.push({ id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } });
    }
  }
  const message: Obj = { content: text };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return chatCompletion(contextOf(response), message, finishReason(response, toolCalls.length > 0), chatUsage(response.usage));
}

/**
 * The answer's id, time and model as the Response states them. This reader's chat shapes are only
 * read by the relay (the caller gets the Response itself), so a field the Response lacks stays
 * absent rather than made up.
 */
function contextOf(response: Obj): AnswerContext {
  return { id: response.id, created: num(response.created_at), model: response.model } as AnswerContext;
}

/**
 * Reads a Responses answer for the relay: the whole Response as a chat.completion (a failed one as
 * OpenAI's error), and per stream event: text deltas as content deltas (first-token time, local
 * counting), the final `response.completed`/`response.incomplete` as the usage chunk, and
 * `response.failed`/`error` as OpenAI's error object; every other event is dropped.
 */
export function responsesReader(): ResponseConverter {
  return {
    json(upstream) {
      const body =
        isObj(upstream) && isObj(upstream.error) && upstream.choices === undefined
          ? openAIError(upstream.error, "upstream response failed")
          : completionOfResponse(isObj(upstream) ? upstream : {});
      return { body: JSON.stringify(body), contentType: "application/json" };
    },
    streamEvent(data) {
      if (!isObj(data)) return null;
      switch (data.type) {
        case "response.output_text.delta":
          return typeof data.delta === "string" ? chatChunk(NO_CONTEXT, { content: data.delta }) : null;
        case "response.completed":
        case "response.incomplete": {
          const response = isObj(data.response) ? data.response : {};
          const usage = chatUsage(response.usage);
          return usage ? chatChunk(contextOf(response), null, null, usage) : null;
        }
        case "response.failed": {
          const response = isObj(data.response) ? data.response : {};
          return openAIError(response.error, "upstream response failed");
        }
        case "error":
          // Its `type` is the event's; the error is the event's code and message.
          return openAIError({ code: data.code, message: data.message }, "upstream stream error");
        // Events the relay has no use for: the Response's lifecycle, its items and parts, and the
        // deltas it does not count (arguments, reasoning summaries, refusals) beyond the text.
        case "response.created":
        case "response.in_progress":
        case "response.queued":
        case "response.output_item.added":
        case "response.output_item.done":
        case "response.content_part.added":
        case "response.content_part.done":
        case "response.output_text.done":
        case "response.output_text.annotation.added":
        case "response.function_call_arguments.delta":
        case "response.function_call_arguments.done":
        case "response.reasoning_summary_part.added":
        case "response.reasoning_summary_part.done":
        case "response.reasoning_summary_text.delta":
        case "response.reasoning_summary_text.done":
        case "response.reasoning_text.delta":
        case "response.reasoning_text.done":
        case "response.refusal.delta":
        case "response.refusal.done":
          return null;
        default:
          countUnknownEvent("openai-responses", String(data.type));
          return null;
      }
    },
  };
}
