// The Responses API's stream, from the relay's OpenAI chat chunks: named events, each with a
// `sequence_number` from 0. The response opens (response.created, response.in_progress); the
// answer's text is one message item (output_item.added, content_part.added, output_text.delta…,
// then the .done events), each tool call a function_call item (output_item.added,
// function_call_arguments.delta…, .done, output_item.done); it closes with response.completed
// (response.incomplete when the output was cut short) carrying the whole response and its usage.
// A failure mid-stream is an `error` event, then response.failed. There is no [DONE].
import type { InboundInfo, InboundStreamEncoder } from "@/lib/relay/inbound/types";
import { sseNamedEvent } from "@/lib/relay/sse";
import {
  functionCallId,
  functionCallItem,
  incompleteReason,
  messageId,
  messageItem,
  outputText,
  type ResponseStatus,
  responseObject,
  responsesUsage,
} from "./response";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

interface OpenItem {
  outputIndex: number;
  kind: "message" | "function_call";
  /** The message's text, or the call's arguments so far. */
  text: string;
  /** function_call only. */
  id?: string;
  callId?: string;
  name?: string;
}

export class ResponsesStreamEncoder implements InboundStreamEncoder {
  private seq = 0;
  private started = false;
  private ended = false;
  /** Output items, open and closed, in output order. */
  private readonly output: Obj[] = [];
  private open: OpenItem[] = [];
  private message: OpenItem | null = null;
  /** Open function calls by chat's tool-call index. */
  private readonly calls = new Map<number, OpenItem>();
  private finishReason: unknown = null;
  private usage: Obj | null = null;

  constructor(private readonly info: InboundInfo) {}

  chunk(chunk: Obj): string {
    if (this.ended) return "";
    let out = this.start();
    if (isObj(chunk.usage)) this.usage = responsesUsage(chunk.usage);
    const choice = Array.isArray(chunk.choices) && isObj(chunk.choices[0]) ? chunk.choices[0] : null;
    if (!choice) return out;
    const delta = isObj(choice.delta) ? choice.delta : {};
    if (typeof delta.content === "string" && delta.content !== "") out += this.text(delta.content);
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
    out += this.closeAll(incomplete ? "incomplete" : "completed");
    const status: ResponseStatus = incomplete ? "incomplete" : "completed";
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

  private text(delta: string): string {
    let out = "";
    if (!this.message) {
      const item: OpenItem = { outputIndex: this.output.length, kind: "message", text: "" };
      this.message = item;
      this.open.push(item);
      this.output.push(messageItem(this.info, [], "in_progress"));
      out += this.event("response.output_item.added", { output_index: item.outputIndex, item: this.output[item.outputIndex] });
      out += this.event("response.content_part.added", {
        item_id: messageId(this.info),
        output_index: item.outputIndex,
        content_index: 0,
        part: outputText(""),
      });
    }
    this.message.text += delta;
    return (
      out +
      this.event("response.output_text.delta", {
        item_id: messageId(this.info),
        output_index: this.message.outputIndex,
        content_index: 0,
        delta,
        logprobs: [],
      })
    );
  }

  private toolCall(call: Obj): string {
    const index = typeof call.index === "number" ? call.index : 0;
    const fn = isObj(call.function) ? call.function : {};
    let out = "";
    let item = this.calls.get(index);
    if (!item) {
      const n = this.calls.size;
      item = {
        outputIndex: this.output.length,
        kind: "function_call",
        text: "",
        id: functionCallId(this.info, n),
        callId: typeof call.id === "string" && call.id !== "" ? call.id : `call_${this.info.requestId}_${n}`,
        name: typeof fn.name === "string" ? fn.name : "",
      };
      this.calls.set(index, item);
      this.open.push(item);
      this.output.push(functionCallItem(item.id!, { callId: item.callId!, name: item.name!, arguments: "" }, "in_progress"));
      out += this.event("response.output_item.added", { output_index: item.outputIndex, item: this.output[item.outputIndex] });
    } else if (typeof fn.name === "string" && fn.name !== "" && item.name === "") {
      item.name = fn.name;
    }
    if (typeof fn.arguments === "string" && fn.arguments !== "") {
      item.text += fn.arguments;
      out += this.event("response.function_call_arguments.delta", {
        item_id: item.id,
        output_index: item.outputIndex,
        delta: fn.arguments,
      });
    }
    return out;
  }

  /** Closes every open item, in output order. */
  private closeAll(reason: "completed" | "incomplete"): string {
    let out = "";
    for (const item of this.open) {
      if (item.kind === "message") {
        const id = messageId(this.info);
        const part = outputText(item.text);
        out += this.event("response.output_text.done", {
          item_id: id,
          output_index: item.outputIndex,
          content_index: 0,
          text: item.text,
          logprobs: [],
        });
        out += this.event("response.content_part.done", { item_id: id, output_index: item.outputIndex, content_index: 0, part });
      } else {
        out += this.event("response.function_call_arguments.done", {
          item_id: item.id,
          output_index: item.outputIndex,
          name: item.name,
          arguments: item.text,
        });
      }
      this.output[item.outputIndex] = this.closedItem(item, reason);
      out += this.event("response.output_item.done", { output_index: item.outputIndex, item: this.output[item.outputIndex] });
    }
    this.open = [];
    return out;
  }

  /** An item as it ends: its whole text or arguments. */
  private closedItem(item: OpenItem, status: "completed" | "incomplete"): Obj {
    if (item.kind === "message") return messageItem(this.info, [outputText(item.text)], status);
    return functionCallItem(item.id!, { callId: item.callId!, name: item.name!, arguments: item.text }, status);
  }

  private event(type: string, fields: Obj): string {
    return sseNamedEvent(type, JSON.stringify({ type, sequence_number: this.seq++, ...fields }));
  }
}
