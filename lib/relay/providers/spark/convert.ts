// OpenAI chat ⇄ Spark's WebSocket frames. Request: one frame
// `{header:{app_id, uid}, parameter:{chat:{domain, temperature, max_tokens, top_k}},
//   payload:{message:{text:[{role, content}]}, functions?:{text:[…]}}}`.
// Answers: frames `{header:{code, message, sid, status}, payload:{choices:{status, seq,
// text:[{content, role, function_call?}]}, usage?:{text:{prompt_tokens, completion_tokens, total_tokens}}}}`,
// header.status 2 on the last, code ≠ 0 an error. Pure.
import { RelayError } from "../../errors";
import { isObj, type Obj } from "@/lib/obj";
import { type AnswerContext, chatChunk, chatCompletion, num, openAIErrorBody, openAIUsage } from "../convert-shared";
import type { RequestMessage } from "../flat-chat";

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** Canonical request → Spark's request frame. */
export function toSparkFrame(json: Obj, messages: readonly RequestMessage[], appId: string, domain: string): Obj {
  const text = messages.map((m) => {
    if (m.images.length > 0) {
      throw new RelayError(400, "Spark chat channels take text only (no image parts)", {
        type: "invalid_request_error",
        code: "unsupported_content",
        param: "messages",
      });
    }
    switch (m.role) {
      case "system":
      case "developer":
        return { role: "system", content: m.text };
      case "assistant": {
        const calls = Array.isArray(m.raw.tool_calls) ? m.raw.tool_calls : [];
        return { role: "assistant", content: m.text !== "" || calls.length === 0 ? m.text : JSON.stringify(calls) };
      }
      default:
        // Spark has no tool role: a tool's result goes back as the user's turn.
        return { role: "user", content: m.text };
    }
  });
  const chat: Obj = { domain };
  if (typeof json.temperature === "number") chat.temperature = clamp(json.temperature, 0.01, 1);
  const maxTokens = json.max_completion_tokens ?? json.max_tokens;
  if (typeof maxTokens === "number") chat.max_tokens = maxTokens;
  if (typeof json.top_k === "number") chat.top_k = clamp(Math.round(json.top_k), 1, 6);
  const payload: Obj = { message: { text } };
  if (Array.isArray(json.tools)) {
    const functions = json.tools
      .filter((t): t is Obj => isObj(t) && t.type === "function" && isObj(t.function))
      .map((t) => t.function as Obj);
    if (functions.length > 0) payload.functions = { text: functions };
  }
  const uid = typeof json.user === "string" && json.user !== "" ? json.user.slice(0, 32) : "qiao";
  return { header: { app_id: appId, uid }, parameter: { chat }, payload };
}

function frameHeader(frame: Obj): Obj {
  return isObj(frame.header) ? frame.header : {};
}

function frameText(frame: Obj): Obj {
  const payload = isObj(frame.payload) ? frame.payload : {};
  const choices = isObj(payload.choices) ? payload.choices : {};
  const first = Array.isArray(choices.text) ? choices.text[0] : undefined;
  return isObj(first) ? first : {};
}

function frameUsage(frame: Obj): Obj | null {
  const payload = isObj(frame.payload) ? frame.payload : {};
  const usage = isObj(payload.usage) && isObj(payload.usage.text) ? payload.usage.text : null;
  return usage ? openAIUsage(num(usage.prompt_tokens) ?? 0, num(usage.completion_tokens) ?? 0) : null;
}

/** A frame with code ≠ 0 as OpenAI's error body, else null. */
export function sparkFrameError(frame: unknown): Obj | null {
  if (!isObj(frame)) return openAIErrorBody("Spark sent a frame that is not a JSON object", null);
  const header = frameHeader(frame);
  const code = num(header.code) ?? 0;
  if (code === 0) return null;
  return openAIErrorBody(`${typeof header.message === "string" ? header.message : "Spark error"} (sid ${String(header.sid ?? "")})`, code);
}

function toolCall(fc: Obj, sid: unknown): Obj {
  return {
    id: `call_${typeof sid === "string" ? sid : "spark"}`,
    type: "function",
    function: { name: typeof fc.name === "string" ? fc.name : "", arguments: typeof fc.arguments === "string" ? fc.arguments : "" },
  };
}

/**
 * The frames of a whole answer merged into one frame of the same shape: the contents joined, the
 * function call and usage kept, the last header.
 */
export function mergeSparkFrames(frames: readonly Obj[]): Obj {
  let content = "";
  let functionCall: Obj | null = null;
  let usage: unknown;
  for (const f of frames) {
    const t = frameText(f);
    if (typeof t.content === "string") content += t.content;
    if (isObj(t.function_call)) functionCall = t.function_call;
    const payload = isObj(f.payload) ? f.payload : {};
    if (isObj(payload.usage)) usage = payload.usage;
  }
  const text: Obj = { role: "assistant", content };
  if (functionCall) text.function_call = functionCall;
  const payload: Obj = { choices: { status: 2, seq: frames.length - 1, text: [text] } };
  if (usage) payload.usage = usage;
  return { header: frames.length > 0 ? frameHeader(frames[frames.length - 1]!) : { code: 0, status: 2 }, payload };
}

/** A (merged) frame → `chat.completion`. */
export function sparkToOpenAI(frame: unknown, ids: AnswerContext): Obj {
  const error = sparkFrameError(frame);
  if (error) return error;
  const f = frame as Obj;
  const t = frameText(f);
  const message: Obj = { content: typeof t.content === "string" ? t.content : "" };
  if (isObj(t.function_call)) message.tool_calls = [toolCall(t.function_call, frameHeader(f).sid)];
  return chatCompletion(ids, message, message.tool_calls ? "tool_calls" : "stop", frameUsage(f));
}

/** Per call: stream frames → chunks, the finish reason and usage on the last. */
export class SparkStream {
  private started = false;
  private calledTool = false;
  constructor(private readonly ids: AnswerContext) {}

  event(frame: unknown): Obj | null {
    // The exchange's own error event (a frame that was not JSON) is already OpenAI's shape.
    if (isObj(frame) && isObj(frame.error)) return frame;
    const error = sparkFrameError(frame);
    if (error) return error;
    const f = frame as Obj;
    const t = frameText(f);
    const delta: Obj = this.started ? {} : { role: "assistant" };
    if (typeof t.content === "string" && t.content !== "") delta.content = t.content;
    if (isObj(t.function_call)) {
      delta.tool_calls = [{ index: 0, ...toolCall(t.function_call, frameHeader(f).sid) }];
      this.calledTool = true;
    }
    const last = (num(frameHeader(f).status) ?? 0) === 2;
    if (!last && delta.content === undefined && delta.tool_calls === undefined) return null;
    this.started = true;
    return chatChunk(this.ids, delta, last ? (this.calledTool ? "tool_calls" : "stop") : null, last ? frameUsage(f) : null);
  }
}
