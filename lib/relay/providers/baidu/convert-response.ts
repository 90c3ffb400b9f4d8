// Baidu Wenxin answers → OpenAI's. Chat: `{id, result, is_truncated, need_clear_history,
// finish_reason, usage}` (`function_call {name, arguments, thoughts}` when ERNIE calls a function:
// an OpenAI tool call, its thoughts as `reasoning_content`); stream events the same with `is_end`; embeddings `{data:[{embedding,
// index}], usage}`; errors come as a 200 with `{error_code, error_msg}`. Pure.
import { isObj, type Obj } from "@/lib/obj";
import { countUnknownEvent } from "../unknown-events";
import { BaiduChat, BaiduEmbeddings, type BaiduEvent } from "./api";
import { type AnswerContext, chatChunk, chatCompletion, num, openAIErrorBody, openAIUsage, str } from "../convert-shared";

/** Error codes that mean the access token is invalid or expired: drop the cached one. */
export const BAIDU_TOKEN_ERRORS: ReadonlySet<number> = new Set([110, 111]);

/** `{error_code, error_msg}` → OpenAI's error body, or null when it is no error. */
export function baiduError(upstream: Obj): Obj | null {
  const code = num(upstream.error_code);
  if (code === undefined || code === 0) return null;
  return openAIErrorBody(str(upstream.error_msg) || `百度返回错误 ${code}`, code);
}

function usageOf(u: unknown): Obj | undefined {
  if (!isObj(u)) return undefined;
  return openAIUsage(num(u.prompt_tokens) ?? 0, num(u.completion_tokens) ?? 0, num(u.total_tokens));
}

function finishReason(a: BaiduEvent): string {
  if (isObj(a.function_call)) return "tool_calls";
  if (a.need_clear_history === true || a.finish_reason === "content_filter") return "content_filter";
  if (a.is_truncated === true || a.finish_reason === "length") return "length";
  return "stop";
}

/** ERNIE's `function_call` → an OpenAI tool call (ERNIE gives no id: one is made from the answer's). */
function toolCall(fc: Obj, answerId: string): Obj {
  return { id: `call_${answerId}`, type: "function", function: { name: str(fc.name) ?? "", arguments: str(fc.arguments) ?? "{}" } };
}

export function baiduChatToOpenAI(upstream: unknown, ctx: AnswerContext): Obj {
  const parsed = BaiduChat.safeParse(upstream);
  if (!parsed.success) return openAIErrorBody("百度返回了无法识别的应答", null);
  const answer = parsed.data;
  const error = baiduError(answer);
  if (error) return error;
  const id = answer.id || ctx.id;
  const out = chatCompletion({ ...ctx, id }, answer.result ?? "", finishReason(answer), usageOf(answer.usage));
  const fc = answer.function_call;
  if (fc) {
    const message = (out.choices as Obj[])[0]!.message as Obj;
    message.tool_calls = [toolCall(fc, id)];
    if (fc.thoughts) message.reasoning_content = fc.thoughts;
  }
  return out;
}

/** One stream event → a chunk; the last one (`is_end`) carries the finish reason and the usage. */
export function baiduEventToOpenAI(data: unknown, ctx: AnswerContext): Obj | null {
  if (!isObj(data)) {
    countUnknownEvent("baidu", "non-object");
    return null;
  }
  const event: BaiduEvent = data;
  const error = baiduError(event);
  if (error) return error;
  const text = str(event.result) ?? "";
  const delta: Obj = text === "" ? {} : { content: text };
  const fc = event.function_call;
  if (isObj(fc)) {
    if (str(fc.thoughts)) delta.reasoning_content = fc.thoughts;
    delta.tool_calls = [{ index: 0, ...toolCall(fc, str(event.id) || ctx.id) }];
  }
  if (event.is_end === true) return chatChunk(ctx, delta, finishReason(event), usageOf(event.usage));
  // An event with no text, call or end is not one Baidu documents: counted, passed on as before.
  if (event.result === undefined && !isObj(fc)) countUnknownEvent("baidu", "no-result");
  return chatChunk(ctx, { role: "assistant", content: text, ...delta }, null);
}

export function baiduEmbeddingsToOpenAI(upstream: unknown, model: string): Obj {
  const parsed = BaiduEmbeddings.safeParse(upstream);
  if (!parsed.success) return openAIErrorBody("百度返回了无法识别的应答", null);
  const answer = parsed.data;
  const error = baiduError(answer);
  if (error) return error;
  const prompt = answer.usage?.prompt_tokens ?? 0;
  return {
    object: "list",
    data: answer.data.map((d, i) => ({ object: "embedding", embedding: d ? d.embedding : [], index: d ? (d.index ?? i) : i })),
    model,
    usage: { prompt_tokens: prompt, total_tokens: answer.usage?.total_tokens ?? prompt },
  };
}
