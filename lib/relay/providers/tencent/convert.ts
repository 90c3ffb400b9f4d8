// The canonical request → Hunyuan's ChatCompletions (API 3.0, PascalCase), and its answers back:
// `{Response:{Choices:[{Message, FinishReason}], Usage, Id, Error?, RequestId}}`; stream events
// `{Choices:[{Delta, FinishReason}], Usage, Id}` (usage running, final with the finish reason).
// Pure.
import {
  type AnswerContext,
  alternatingTurns,
  chatChunk,
  chatCompletion,
  isObj,
  num,
  type Obj,
  openAIErrorBody,
  openAIUsage,
  plainMessages,
  str,
} from "../convert-shared";

export function toHunyuanBody(body: Obj, model: string, stream: boolean): Obj {
  const { system, turns } = alternatingTurns(plainMessages(body));
  const messages = turns.map((m) => ({ Role: m.role, Content: m.content }));
  if (system) messages.unshift({ Role: "system", Content: system });
  const out: Obj = { Model: model, Messages: messages, Stream: stream };
  const temperature = num(body.temperature);
  if (temperature !== undefined) out.Temperature = Math.min(Math.max(temperature, 0), 2);
  const topP = num(body.top_p);
  if (topP !== undefined) out.TopP = Math.min(Math.max(topP, 0), 1);
  return out;
}

const FINISH: Record<string, string> = { stop: "stop", length: "length", sensitive: "content_filter", tool_calls: "tool_calls" };

function usageOf(u: unknown): Obj | undefined {
  if (!isObj(u)) return undefined;
  return openAIUsage(num(u.PromptTokens) ?? 0, num(u.CompletionTokens) ?? 0, num(u.TotalTokens));
}

/** `Error: {Code, Message}` (API errors) or `ErrorMsg: {Code, Msg}` (stream errors) → OpenAI's. */
function hunyuanError(r: Obj): Obj | null {
  if (isObj(r.Error)) return openAIErrorBody(str(r.Error.Message) || "混元返回了错误", str(r.Error.Code) ?? num(r.Error.Code) ?? null);
  if (isObj(r.ErrorMsg))
    return openAIErrorBody(str(r.ErrorMsg.Msg) || "混元返回了错误", num(r.ErrorMsg.Code) ?? str(r.ErrorMsg.Code) ?? null);
  return null;
}

export function hunyuanToOpenAI(upstream: unknown, ctx: AnswerContext): Obj {
  const r = isObj(upstream) && isObj(upstream.Response) ? upstream.Response : null;
  if (!r) return openAIErrorBody("混元返回了无法识别的应答", null);
  const error = hunyuanError(r);
  if (error) return error;
  const choice = Array.isArray(r.Choices) && isObj(r.Choices[0]) ? r.Choices[0] : {};
  const message = isObj(choice.Message) ? choice.Message : {};
  const finish = FINISH[str(choice.FinishReason) ?? ""] ?? "stop";
  return chatCompletion({ ...ctx, id: str(r.Id) || ctx.id }, str(message.Content) ?? "", finish, usageOf(r.Usage));
}

/** One stream event (or an error body framed as one) → a chunk or an error object. */
export function hunyuanEventToOpenAI(event: unknown, ctx: AnswerContext): Obj | null {
  if (!isObj(event)) return null;
  const error = hunyuanError(isObj(event.Response) ? event.Response : event);
  if (error) return error;
  const choice = Array.isArray(event.Choices) && isObj(event.Choices[0]) ? event.Choices[0] : null;
  if (!choice) return null;
  const delta = isObj(choice.Delta) ? choice.Delta : {};
  const text = str(delta.Content) ?? "";
  const reason = str(choice.FinishReason) ?? "";
  if (reason !== "") return chatChunk(ctx, text === "" ? {} : { content: text }, FINISH[reason] ?? "stop", usageOf(event.Usage));
  return chatChunk(ctx, { role: "assistant", content: text }, null);
}
