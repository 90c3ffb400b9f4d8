// The Responses API's stream, from the relay's OpenAI chat chunks: named events, each with a
// `sequence_number` from 0. The response opens (response.created, response.in_progress); the
// model's reasoning, when the vendor streams it, is a reasoning item (reasoning_text); the
// answer's text is one message item (output_item.added, content_part.added, output_text.delta…,
// then the .done events), each tool call an item of the type the caller's tool answers with
// (./tools.ts): a function_call (output_item.added, function_call_arguments.delta…, .done,
// output_item.done), a custom_tool_call (its input is the `input` member of the chat call's JSON
// arguments, so it is read whole when the call ends: custom_tool_call_input.delta once, then .done)
// or a local_shell_call (its action likewise, in output_item.done); it closes with response.completed
// (response.incomplete when the output was cut short) carrying the whole response and its usage.
// A failure mid-stream is an `error` event, then response.failed. There is no [DONE].
import type { InboundInfo, InboundStreamEncoder } from "@/lib/relay/inbound/types";
import { sseNamedEvent } from "@/lib/relay/openai/sse";
import {
  callItem,
  callItemId,
  incompleteReason,
  messageId,
  messageItem,
  outputText,
  reasoningId,
  reasoningItem,
  reasoningText,
  type ResponseStatus,
  responseObject,
  responsesUsage,
} from "./encode-response";
import { isObj, type Obj } from "@/lib/obj";
import { type CallerCall, callerCall, declaredTools, planTools, type ToolPlan } from "./tools";

interface OpenItem {
  outputIndex: number;
  kind: "reasoning" | "message" | "call";
  id: string;
  /** The reasoning or message text, or the call's arguments, so far. */
  text: string;
  /** A call only: its id, its chat function name, and the item type it answers as. */
  callId?: string;
  name?: string;
  callType?: CallerCall["type"];
}

/** The text a chat delta carries in a member, when it carries any. */
const textOf = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

export class ResponsesStreamEncoder implements InboundStreamEncoder {
  private seq = 0;
  private started = false;
  private ended = false;
  /** Output items, open and closed, in output order. */
  private readonly output: Obj[] = [];
  private open: OpenItem[] = [];
  private reasoning: OpenItem | null = null;
  private reasonings = 0;
  private message: OpenItem | null = null;
  /** Open function calls by chat's tool-call index. */
  private readonly calls = new Map<number, OpenItem>();
  private finishReason: unknown = null;
  private usage: Obj | null = null;
  private readonly tools: ToolPlan;

  constructor(private readonly info: InboundInfo) {
    this.tools = planTools(declaredTools(info.request));
  }

  chunk(chunk: Obj): string {
    if (this.ended) return "";
    let out = this.start();
    if (isObj(chunk.usage)) this.usage = responsesUsage(chunk.usage);
    const choice = Array.isArray(chunk.choices) && isObj(chunk.choices[0]) ? chunk.choices[0] : null;
    if (!choice) return out;
    const delta = isObj(choice.delta) ? choice.delta : {};
    // DeepSeek's reasoning_content, and `reasoning` from some OpenAI-compatible servers.
    const reasoning = textOf(delta.reasoning_content) ?? textOf(delta.reasoning);
    if (reasoning !== null) out += this.reasoningText(reasoning);
    const content = textOf(delta.content);
    if (content !== null) out += this.text(content);
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) if (isObj(call)) out += this.toolCall(call);
    if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") this.finishReason = choice.finish_reason;
    return out;
  }

  error(error: { message: string; type: string; code: string | number | null }): string {
    if (this.ended) return "";
    this.ended = true;
    const code = error.code === null ? error.type : String(error.code);
    let out = this.start();
    out += this.event("error", { code, message: error.message, param: null });
    out += this.event("response.failed", {
      response: responseObject(this.info, {
        status: "failed",
        // What was sent before the failure, the items that were still open cut short.
        output: this.output.map((item, i) => {
          const open = this.open.find((o) => o.outputIndex === i);
          return open ? this.closedItem(open, "incomplete") : item;
        }),
        usage: this.usage,
        error: { code, message: error.message },
      }),
    });
    return out;
  }

  done(): string {
    if (this.ended) return "";
    this.ended = true;
    let out = this.start();
    const incomplete = incompleteReason(this.finishReason);
    const status: ResponseStatus = incomplete ? "incomplete" : "completed";
    for (const item of this.open) out += this.close(item, status);
    this.open = [];
    out += this.event(`response.${status}`, {
      response: responseObject(this.info, { status, output: this.output, usage: this.usage, incomplete }),
    });
    return out;
  }

  private start(): string {
    if (this.started) return "";
    this.started = true;
    const response = responseObject(this.info, { status: "in_progress", output: [], usage: null });
    return this.event("response.created", { response }) + this.event("response.in_progress", { response });
  }

  /** Opens an output item: its place in the output, and the output_item.added event. */
  private add(item: OpenItem, shown: Obj): string {
    this.open.push(item);
    this.output.push(shown);
    return this.event("response.output_item.added", { output_index: item.outputIndex, item: shown });
  }

  private reasoningText(delta: string): string {
    let out = "";
    if (!this.reasoning) {
      const item: OpenItem = {
        outputIndex: this.output.length,
        kind: "reasoning",
        id: reasoningId(this.info, this.reasonings++),
        text: "",
      };
      this.reasoning = item;
      out += this.add(item, reasoningItem(item.id, null, "in_progress"));
      out += this.event("response.content_part.added", {
        item_id: item.id,
        output_index: item.outputIndex,
        content_index: 0,
        part: reasoningText(""),
      });
    }
    const item = this.reasoning;
    item.text += delta;
    return out + this.event("response.reasoning_text.delta", { item_id: item.id, output_index: item.outputIndex, content_index: 0, delta });
  }

  /** The reasoning is over once the answer (text or a call) begins. */
  private endReasoning(): string {
    const item = this.reasoning;
    if (!item) return "";
    this.reasoning = null;
    this.open = this.open.filter((o) => o !== item);
    return this.close(item, "completed");
  }

  private text(delta: string): string {
    let out = this.endReasoning();
    if (!this.message) {
      const item: OpenItem = { outputIndex: this.output.length, kind: "message", id: messageId(this.info), text: "" };
      this.message = item;
      out += this.add(item, messageItem(this.info, [], "in_progress"));
      out += this.event("response.content_part.added", {
        item_id: item.id,
        output_index: item.outputIndex,
        content_index: 0,
        part: outputText(""),
      });
    }
    const item = this.message;
    item.text += delta;
    return (
      out +
      this.event("response.output_text.delta", {
        item_id: item.id,
        output_index: item.outputIndex,
        content_index: 0,
        delta,
        logprobs: [],
      })
    );
  }

  private toolCall(call: Obj): string {
    const index = typeof call.index === "number" ? call.index : 0;
    const fn = isObj(call.function) ? call.function : {};
    let out = this.endReasoning();
    let item = this.calls.get(index);
    if (!item) {
      const n = this.calls.size;
      const callId = typeof call.id === "string" && call.id !== "" ? call.id : `call_${this.info.requestId}_${n}`;
      const name = typeof fn.name === "string" ? fn.name : "";
      // Chat names the function in a call's first delta: its type is known from the start.
      const opening = callerCall(this.tools, { callId, name, arguments: "" });
      item = {
        outputIndex: this.output.length,
        kind: "call",
        id: callItemId(this.info, opening.type, n),
        text: "",
        callId,
        name,
        callType: opening.type,
      };
      this.calls.set(index, item);
      out += this.add(item, callItem(item.id, opening, "in_progress"));
    } else if (typeof fn.name === "string" && fn.name !== "" && item.name === "") {
      item.name = fn.name;
    }
    if (typeof fn.arguments === "string" && fn.arguments !== "") {
      item.text += fn.arguments;
      if (item.callType === "function_call") {
        out += this.event("response.function_call_arguments.delta", {
          item_id: item.id,
          output_index: item.outputIndex,
          delta: fn.arguments,
        });
      }
    }
    return out;
  }

  /** An item's closing events, and its final form in the output. */
  private close(item: OpenItem, status: "completed" | "incomplete"): string {
    const at = { item_id: item.id, output_index: item.outputIndex };
    let out = "";
    this.output[item.outputIndex] = this.closedItem(item, status);
    const closed = this.output[item.outputIndex]!;
    if (item.kind === "call") {
      if (closed.type === "function_call") {
        out += this.event("response.function_call_arguments.done", { ...at, name: closed.name, arguments: closed.arguments });
      } else if (closed.type === "custom_tool_call") {
        const input = closed.input as string;
        if (input !== "") out += this.event("response.custom_tool_call_input.delta", { ...at, delta: input });
        out += this.event("response.custom_tool_call_input.done", { ...at, input });
      }
    } else if (item.kind === "message") {
      out += this.event("response.output_text.done", { ...at, content_index: 0, text: item.text, logprobs: [] });
      out += this.event("response.content_part.done", { ...at, content_index: 0, part: outputText(item.text) });
    } else {
      out += this.event("response.reasoning_text.done", { ...at, content_index: 0, text: item.text });
      out += this.event("response.content_part.done", { ...at, content_index: 0, part: reasoningText(item.text) });
    }
    return out + this.event("response.output_item.done", { output_index: item.outputIndex, item: closed });
  }

  /** An item as it ends: its whole text, arguments, input or action. */
  private closedItem(item: OpenItem, status: "completed" | "incomplete"): Obj {
    if (item.kind === "message") return messageItem(this.info, [outputText(item.text)], status);
    if (item.kind === "reasoning") return reasoningItem(item.id, item.text, status);
    return callItem(item.id, callerCall(this.tools, { callId: item.callId!, name: item.name!, arguments: item.text }), status);
  }

  private event(type: string, fields: Obj): string {
    return sseNamedEvent(type, JSON.stringify({ type, sequence_number: this.seq++, ...fields }));
  }
}
