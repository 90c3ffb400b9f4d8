// The canonical request → Hunyuan's ChatCompletions (API 3.0, PascalCase), and its answers back:
// `{Response:{Choices:[{Message, FinishReason}], Usage, Id, Error?, RequestId}}`; stream events
// `{Choices:[{Delta, FinishReason}], Usage, Id}` (usage running, final with the finish reason).
// Tools: OpenAI's `tools`/`tool_choice` → `Tools` (Parameters as a JSON string), `ToolChoice`
// none/auto/custom (+ `CustomTool`; OpenAI's "required", which Hunyuan lacks, is sent as auto); assistant `tool_calls` → `ToolCalls`, `tool` results →
// `Role: "tool"` with `ToolCallId`. Images: `image_url` parts → `Contents` (`ImageUrl.Url`, an
// http(s) URL or a `data:image/…;base64,` URL, both accepted by Hunyuan). Pure.
import { RelayError } from "../../errors";
import { imageUrlOf } from "../../request/images";
import { isObj, type Obj } from "@/lib/obj";
import { countUnknownEvent } from "../unknown-events";
import { HunyuanAnswer, type HunyuanEvent } from "./api";
import {
  type AnswerContext,
  alternatingTurns,
  chatChunk,
  chatCompletion,
  num,
  openAIErrorBody,
  openAIUsage,
  plainMessages,
  str,
  textOf,
} from "../convert-shared";

/** Whether the conversation needs Hunyuan's tool roles or image contents (else plain alternating turns). */
function isRich(body: Obj): boolean {
  if (Array.isArray(body.tools) && body.tools.length > 0) return true;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return messages.some(
    (m) =>
      isObj(m) &&
      (m.role === "tool" ||
        m.role === "function" ||
        (Array.isArray(m.tool_calls) && m.tool_calls.length > 0) ||
        (Array.isArray(m.content) && m.content.some((p) => isObj(p) && p.type === "image_url"))),
  );
}

function hunyuanTool(fn: Obj): Obj {
  const out: Obj = {
    Name: str(fn.name) ?? "",
    Parameters: JSON.stringify(isObj(fn.parameters) ? fn.parameters : { type: "object", properties: {} }),
  };
  if (typeof fn.description === "string") out.Description = fn.description;
  return { Type: "function", Function: out };
}

/** A user message's `Contents` (text and image parts), or its `Content` when it is text only. */
function userContent(content: unknown): Obj {
  if (!Array.isArray(content) || !content.some((p) => isObj(p) && p.type === "image_url")) return { Content: textOf(content) };
  const parts: Obj[] = [];
  for (const p of content) {
    if (!isObj(p)) continue;
    if (p.type === "text" && typeof p.text === "string") parts.push({ Type: "text", Text: p.text });
    const url = p.type === "image_url" ? imageUrlOf(p) : null;
    if (url) parts.push({ Type: "image_url", ImageUrl: { Url: url } });
  }
  // Hunyuan wants at least one text part next to the images.
  if (!parts.some((p) => p.Type === "text")) parts.unshift({ Type: "text", Text: "" });
  return { Contents: parts };
}

/**
 * Messages with tools and images: system text first, then user/assistant/tool turns as Hunyuan
 * orders them (a greeting before the first user turn dropped; consecutive text-only user turns
 * merged; tool results may follow each other).
 */
function richMessages(body: Obj): Obj[] {
  plainMessages(body); // the same refusal of an empty or missing list
  const system: string[] = [];
  const out: Obj[] = [];
  for (const m of body.messages as unknown[]) {
    if (!isObj(m)) continue;
    const last = out.at(-1);
    if (m.role === "system" || m.role === "developer") {
      system.push(textOf(m.content));
    } else if (m.role === "assistant") {
      if (!last) continue;
      const msg: Obj = { Role: "assistant", Content: textOf(m.content) };
      const calls = Array.isArray(m.tool_calls) ? m.tool_calls.filter(isObj) : [];
      if (calls.length > 0)
        msg.ToolCalls = calls.map((c) => {
          const fn = isObj(c.function) ? c.function : {};
          return { Id: str(c.id) ?? "", Type: "function", Function: { Name: str(fn.name) ?? "", Arguments: str(fn.arguments) ?? "{}" } };
        });
      out.push(msg);
    } else if (m.role === "tool" || m.role === "function") {
      out.push({ Role: "tool", Content: textOf(m.content), ToolCallId: str(m.tool_call_id) ?? str(m.name) ?? "" });
    } else {
      const content = userContent(m.content);
      if (last && last.Role === "user" && typeof last.Content === "string" && typeof content.Content === "string")
        last.Content = `${last.Content}\n\n${content.Content}`;
      else out.push({ Role: "user", ...content });
    }
  }
  const end = out.at(-1)?.Role;
  if (end !== "user" && end !== "tool") {
    throw new RelayError(400, "the conversation must end with a user or tool message", {
      type: "invalid_request_error",
      code: "invalid_messages",
      param: "messages",
    });
  }
  if (system.length > 0) out.unshift({ Role: "system", Content: system.join("\n") });
  return out;
}

function applyTools(body: Obj, out: Obj): void {
  const tools = Array.isArray(body.tools) ? body.tools.filter((t) => isObj(t) && isObj(t.function)) : [];
  if (tools.length === 0) return;
  out.Tools = tools.map((t) => hunyuanTool((t as Obj).function as Obj));
  const choice = body.tool_choice;
  if (choice === "none" || choice === "auto") out.ToolChoice = choice;
  else if (choice === "required") out.ToolChoice = "auto";
  else if (isObj(choice) && isObj(choice.function)) {
    const name = str(choice.function.name);
    const tool = tools.find((t) => isObj((t as Obj).function) && ((t as Obj).function as Obj).name === name) as Obj | undefined;
    if (tool) {
      out.ToolChoice = "custom";
      out.CustomTool = hunyuanTool(tool.function as Obj);
    }
  }
}

export function toHunyuanBody(body: Obj, model: string, stream: boolean): Obj {
  let messages: Obj[];
  if (isRich(body)) messages = richMessages(body);
  else {
    const { system, turns } = alternatingTurns(plainMessages(body));
    messages = turns.map((m) => ({ Role: m.role, Content: m.content }));
    if (system) messages.unshift({ Role: "system", Content: system });
  }
  const out: Obj = { Model: model, Messages: messages, Stream: stream };
  applyTools(body, out);
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
  const parsed = HunyuanAnswer.safeParse(upstream);
  if (!parsed.success) return openAIErrorBody("混元返回了无法识别的应答", null);
  const r = parsed.data.Response;
  const error = hunyuanError(r);
  if (error) return error;
  const choice = r.Choices[0];
  const message = choice?.Message;
  const calls = message ? message.ToolCalls.map(openAIToolCall) : [];
  const finish = calls.length > 0 ? "tool_calls" : (FINISH[choice?.FinishReason ?? ""] ?? "stop");
  const out = chatCompletion({ ...ctx, id: r.Id || ctx.id }, message?.Content ?? "", finish, usageOf(r.Usage));
  const msg = (out.choices as Obj[])[0]!.message as Obj;
  if (calls.length > 0) msg.tool_calls = calls;
  if (message?.ReasoningContent) msg.reasoning_content = message.ReasoningContent;
  return out;
}

function openAIToolCall(c: Obj): Obj {
  const fn = isObj(c.Function) ? c.Function : {};
  return { id: str(c.Id) ?? "", type: "function", function: { name: str(fn.Name) ?? "", arguments: str(fn.Arguments) ?? "" } };
}

/**
 * Stream state: Hunyuan's streamed `ToolCalls` are merged by `Id`; each new Id gets the next
 * OpenAI index (sent with its id, type and name), later pieces of it only their arguments.
 */
export class HunyuanStream {
  private readonly indexes = new Map<string, number>();
  constructor(private readonly ctx: AnswerContext) {}

  event(data: unknown): Obj | null {
    if (!isObj(data)) return this.unknown("non-object");
    const event: HunyuanEvent = data;
    const error = hunyuanError(isObj(event.Response) ? event.Response : event);
    if (error) return error;
    const choice = Array.isArray(event.Choices) && isObj(event.Choices[0]) ? event.Choices[0] : null;
    if (!choice) return this.unknown("no-choices");
    const delta = isObj(choice.Delta) ? choice.Delta : {};
    const out: Obj = {};
    const text = str(delta.Content) ?? "";
    if (text !== "") out.content = text;
    const reasoning = str(delta.ReasoningContent) ?? "";
    if (reasoning !== "") out.reasoning_content = reasoning;
    const calls = Array.isArray(delta.ToolCalls) ? delta.ToolCalls.filter(isObj) : [];
    if (calls.length > 0) out.tool_calls = calls.map((c) => this.toolDelta(c));
    const reason = str(choice.FinishReason) ?? "";
    if (reason !== "") {
      const finish = this.indexes.size > 0 ? "tool_calls" : (FINISH[reason] ?? "stop");
      return chatChunk(this.ctx, out, finish, usageOf(event.Usage));
    }
    return chatChunk(this.ctx, { role: "assistant", content: text, ...out }, null);
  }

  /** An event this converter does not know (not an error, no choice): counted, skipped. */
  private unknown(kind: string): null {
    countUnknownEvent("tencent", kind);
    return null;
  }

  private toolDelta(c: Obj): Obj {
    const id = str(c.Id) ?? "";
    const fn = isObj(c.Function) ? c.Function : {};
    const known = this.indexes.get(id);
    if (known !== undefined) return { index: known, function: { arguments: str(fn.Arguments) ?? "" } };
    const index = this.indexes.size;
    this.indexes.set(id, index);
    return { index, id, type: "function", function: { name: str(fn.Name) ?? "", arguments: str(fn.Arguments) ?? "" } };
  }
}
