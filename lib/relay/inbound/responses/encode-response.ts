// The Response object of OpenAI's Responses API, built from the canonical chat answer: the whole
// answer here, and the snapshots the stream's lifecycle events carry (./encode-stream.ts).
import type { InboundInfo } from "@/lib/relay/inbound/types";
import { isObj, type Obj } from "@/lib/obj";
import { type CallerCall, callerCall, declaredTools, planTools } from "./tools";

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

export type ResponseStatus = "in_progress" | "completed" | "incomplete" | "failed";

/** Ids tied to the relay's request id, so a response can be found in the logs. */
export const responseId = (info: InboundInfo) => `resp_${info.requestId}`;
export const messageId = (info: InboundInfo) => `msg_${info.requestId}`;
/** A call item's id, its prefix OpenAI's for the item's type. */
export const callItemId = (info: InboundInfo, type: CallerCall["type"], n: number) =>
  `${type === "custom_tool_call" ? "ctc" : type === "local_shell_call" ? "lsh" : "fc"}_${info.requestId}_${n}`;
export const reasoningId = (info: InboundInfo, n: number) => `rs_${info.requestId}_${n}`;

/** Chat's usage → the Responses usage object; null when there is none. */
export function responsesUsage(usage: unknown): Obj | null {
  if (!isObj(usage)) return null;
  const input = num(usage.prompt_tokens);
  const output = num(usage.completion_tokens);
  const pd = isObj(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const cd = isObj(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: num(pd.cached_tokens) },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: num(cd.reasoning_tokens) },
    total_tokens: input + output,
  };
}

/** Why a response stopped short, from chat's finish_reason; null when it did not. */
export function incompleteReason(finishReason: unknown): string | null {
  if (finishReason === "length") return "max_output_tokens";
  if (finishReason === "content_filter") return "content_filter";
  return null;
}

/**
 * A Response object: the output and usage given, and the request's settings echoed back as
 * OpenAI does (clients read them from the response); the model is the one the caller named.
 * Nothing is stored, so `store` is false and
 * there is never a previous response.
 */
export function responseObject(
  info: InboundInfo,
  state: { status: ResponseStatus; output: Obj[]; usage: Obj | null; error?: Obj | null; incomplete?: string | null },
): Obj {
  const req = info.request;
  const reasoning = isObj(req.reasoning) ? req.reasoning : {};
  return {
    id: responseId(info),
    object: "response",
    created_at: info.created,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: state.incomplete ? { reason: state.incomplete } : null,
    instructions: typeof req.instructions === "string" ? req.instructions : null,
    max_output_tokens: typeof req.max_output_tokens === "number" ? req.max_output_tokens : null,
    model: info.model,
    output: state.output,
    parallel_tool_calls: typeof req.parallel_tool_calls === "boolean" ? req.parallel_tool_calls : true,
    previous_response_id: null,
    reasoning: { effort: typeof reasoning.effort === "string" ? reasoning.effort : null, summary: null },
    store: false,
    temperature: typeof req.temperature === "number" ? req.temperature : 1,
    text: isObj(req.text) && isObj(req.text.format) ? req.text : { format: { type: "text" } },
    tool_choice: req.tool_choice ?? "auto",
    tools: Array.isArray(req.tools) ? req.tools : [],
    top_p: typeof req.top_p === "number" ? req.top_p : 1,
    truncation: typeof req.truncation === "string" ? req.truncation : "disabled",
    usage: state.usage,
    user: typeof req.user === "string" ? req.user : null,
    metadata: isObj(req.metadata) ? req.metadata : {},
  };
}

/** A message output item holding the answer's text (or refusal). */
export function messageItem(info: InboundInfo, content: Obj[], status: "in_progress" | "completed" | "incomplete"): Obj {
  return { type: "message", id: messageId(info), status, role: "assistant", content };
}

export const outputText = (text: string): Obj => ({ type: "output_text", text, annotations: [], logprobs: [] });

export const reasoningText = (text: string): Obj => ({ type: "reasoning_text", text });

/**
 * A reasoning item: the model's own reasoning as the vendor gave it (DeepSeek's
 * reasoning_content), as reasoning text, not a summary. `text` null: not begun (a stream's
 * opening item, whose content parts follow).
 */
export function reasoningItem(id: string, text: string | null, status: "in_progress" | "completed" | "incomplete"): Obj {
  return { type: "reasoning", id, summary: [], content: text === null ? [] : [reasoningText(text)], status };
}

/**
 * A tool call's output item, of the type the caller's tool answers with (./tools.ts): a
 * function_call (with its `namespace` when the tool was a namespace's), a custom_tool_call, or a
 * local_shell_call.
 */
export function callItem(id: string, call: CallerCall, status: "in_progress" | "completed" | "incomplete"): Obj {
  const namespace = call.type !== "local_shell_call" && call.namespace !== undefined ? { namespace: call.namespace } : {};
  switch (call.type) {
    case "function_call":
      return { type: "function_call", id, call_id: call.callId, ...namespace, name: call.name, arguments: call.arguments, status };
    case "custom_tool_call":
      return { type: "custom_tool_call", id, call_id: call.callId, ...namespace, name: call.name, input: call.input, status };
    case "local_shell_call":
      return { type: "local_shell_call", id, call_id: call.callId, action: call.action, status };
  }
}

/** The canonical whole answer (an OpenAI chat.completion) → a Response object. */
export function chatToResponse(answer: Obj, info: InboundInfo): Obj {
  const choice = Array.isArray(answer.choices) && isObj(answer.choices[0]) ? answer.choices[0] : {};
  const message = isObj(choice.message) ? choice.message : {};
  const incomplete = incompleteReason(choice.finish_reason);
  const itemStatus = incomplete ? "incomplete" : "completed";
  const output: Obj[] = [];
  const reasoning = typeof message.reasoning_content === "string" ? message.reasoning_content : message.reasoning;
  if (typeof reasoning === "string" && reasoning !== "") output.push(reasoningItem(reasoningId(info, 0), reasoning, "completed"));
  const content: Obj[] = [];
  if (typeof message.content === "string" && message.content !== "") content.push(outputText(message.content));
  if (typeof message.refusal === "string" && message.refusal !== "") content.push({ type: "refusal", refusal: message.refusal });
  if (content.length > 0) output.push(messageItem(info, content, itemStatus));
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObj) : [];
  const plan = calls.length > 0 ? planTools(declaredTools(info.request)) : null;
  calls.forEach((call, n) => {
    const fn = isObj(call.function) ? call.function : {};
    const caller = callerCall(plan!, {
      callId: typeof call.id === "string" ? call.id : `call_${info.requestId}_${n}`,
      name: typeof fn.name === "string" ? fn.name : "",
      arguments: typeof fn.arguments === "string" ? fn.arguments : "",
    });
    output.push(callItem(callItemId(info, caller.type, n), caller, itemStatus));
  });
  return responseObject(info, {
    status: incomplete ? "incomplete" : "completed",
    output,
    usage: responsesUsage(answer.usage),
    incomplete,
  });
}
