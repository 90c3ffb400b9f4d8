// The canonical answer's chunks → Gemini's stream: one GenerateContentResponse per server-sent event
// (`data: {...}`, no event names, no [DONE]); tool call arguments, which OpenAI streams in pieces,
// are held until the call is complete and sent as one functionCall part; the event that ends a
// candidate is held until the usage arrives, so the last event carries usageMetadata.
import type { InboundInfo, InboundStreamEncoder } from "@/lib/relay/inbound/types";
import { sseJson } from "@/lib/relay/openai/sse";
import { finishReason, functionCallPart, geminiError, usageMetadata } from "./encode-response";
import { isObj, type Obj } from "@/lib/obj";

/** A tool call being streamed: its arguments gathered until the candidate ends. */
type StreamedCall = { id?: string; name: string; arguments: string };

/** One streamed call's encoder (see the file's head). */
export class GeminiStreamEncoder implements InboundStreamEncoder {
  /** Per candidate index, its tool calls by their OpenAI index. */
  private readonly calls = new Map<number, Map<number, StreamedCall>>();
  /** The events that ended candidates, held for the usage. */
  private held: Obj | null = null;
  private model: string;
  private responseId: string;

  constructor(info: InboundInfo) {
    this.model = info.model;
    this.responseId = info.requestId;
  }

  chunk(chunk: Obj): string {
    if (typeof chunk.model === "string" && chunk.model !== "") this.model = chunk.model;
    if (typeof chunk.id === "string" && chunk.id !== "") this.responseId = chunk.id;
    let out = "";
    const candidates: Obj[] = [];
    const ended: Obj[] = [];
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      if (!isObj(choice)) continue;
      const index = typeof choice.index === "number" ? choice.index : 0;
      const delta = isObj(choice.delta) ? choice.delta : {};
      const parts: Obj[] = [];
      if (typeof delta.reasoning_content === "string" && delta.reasoning_content !== "") {
        parts.push({ text: delta.reasoning_content, thought: true });
      }
      if (typeof delta.content === "string" && delta.content !== "") parts.push({ text: delta.content });
      if (Array.isArray(delta.tool_calls)) this.gather(index, delta.tool_calls);
      const reason = finishReason(choice.finish_reason);
      if (reason) {
        parts.push(...this.takeCalls(index));
        ended.push({ content: { role: "model", parts }, finishReason: reason, index });
      } else if (parts.length > 0) {
        candidates.push({ content: { role: "model", parts }, index });
      }
    }
    if (candidates.length > 0) out += this.event({ candidates });
    if (ended.length > 0) {
      // Another candidate ending in a later chunk (n > 1) sends what was held first.
      out += this.flush();
      this.held = { candidates: ended };
    }
    const usage = usageMetadata(chunk.usage);
    if (usage) {
      const last = this.held ?? { candidates: [] };
      this.held = null;
      out += this.event({ ...last, usageMetadata: usage });
    }
    return out;
  }

  error(e: { message: string; type: string; code: string | number | null }): string {
    const status = e.code === "stream_timeout" ? 504 : 500;
    return this.flush() + sseJson(JSON.stringify(geminiError(status, e.message)));
  }

  done(): string {
    return this.flush();
  }

  private gather(index: number, deltas: unknown[]): void {
    let calls = this.calls.get(index);
    if (!calls) this.calls.set(index, (calls = new Map()));
    for (const d of deltas) {
      if (!isObj(d)) continue;
      const at = typeof d.index === "number" ? d.index : calls.size;
      const fn = isObj(d.function) ? d.function : {};
      let call = calls.get(at);
      if (!call) calls.set(at, (call = { name: "", arguments: "" }));
      if (typeof d.id === "string" && d.id !== "") call.id = d.id;
      if (typeof fn.name === "string") call.name += fn.name;
      if (typeof fn.arguments === "string") call.arguments += fn.arguments;
    }
  }

  /** The candidate's gathered tool calls as functionCall parts, in order. */
  private takeCalls(index: number): Obj[] {
    const calls = this.calls.get(index);
    if (!calls) return [];
    this.calls.delete(index);
    return [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => functionCallPart(call));
  }

  private flush(): string {
    // Calls of a candidate that never said it ended (a stream cut short) are still the caller's.
    const pending = [...this.calls.keys()].map((index) => ({
      content: { role: "model", parts: this.takeCalls(index) },
      index,
    }));
    if (pending.length > 0) this.held = { candidates: [...((this.held?.candidates as Obj[]) ?? []), ...pending] };
    if (!this.held) return "";
    const held = this.held;
    this.held = null;
    return this.event(held);
  }

  private event(body: Obj): string {
    return sseJson(JSON.stringify({ ...body, modelVersion: this.model, responseId: this.responseId }));
  }
}
