// Dify: a chat app's `POST {base}/v1/chat-messages` with the app's key as Bearer. Dify keeps its
// own conversations; a stateless OpenAI request becomes one `query` (the earlier turns folded in
// as "ROLE: text" lines), prompt images become `files` by remote URL. Stream events (`message`,
// `agent_message`, `message_end`, `error`…) → chunks, `message_end.metadata.usage` → usage.
// An agent's `agent_thought` for a tool round → `reasoning_content` (its thought, the tool called
// with its input, the tool's observation; each piece once, though Dify repeats the event as the
// round progresses); the round without a tool is the answer itself, which comes as
// `agent_message`. `message_replace` (output moderation replacing the whole answer) cannot
// retract what a stream already sent: its text is appended after a blank line and the stream
// ends with `finish_reason: "content_filter"`, so the client knows the text above was withdrawn.
import { CHANNEL_CATALOG, CHANNEL_TYPES } from "@/lib/channels/catalog";
import { RelayError } from "../../errors";
import type { RelayMode } from "../../types";
import { isObj, type Obj } from "@/lib/obj";
import { answerContext, type AnswerContext, chatChunk, chatCompletion, jsonAnswer, openAIErrorBody } from "../convert-shared";
import { chatRequest, transcript } from "../flat-chat";
import { baseUrlOf, unsupportedMode } from "../openai-compatible";
import type { BuildRequestInput, ProviderAdapter, UpstreamRequest } from "../types";
import { countUnknownEvent } from "../unknown-events";
import { DifyAnswer, type DifyEvent } from "./api";

const { name, baseUrl: defaultBaseUrl } = CHANNEL_CATALOG[CHANNEL_TYPES.Dify];
const supportedModes = new Set<RelayMode>(["chat"]);

/** Canonical request → Dify chat-messages body. */
export function toDifyRequest(input: BuildRequestInput): Obj {
  const { json, messages } = chatRequest(input);
  const files: Obj[] = [];
  for (const m of messages) {
    for (const url of m.images) {
      if (!/^https?:\/\//i.test(url)) {
        throw new RelayError(400, "Dify channels take prompt images by http(s) URL only", {
          type: "invalid_request_error",
          code: "invalid_image_url",
          param: "messages",
        });
      }
      files.push({ type: "image", transfer_method: "remote_url", url });
    }
  }
  const body: Obj = {
    inputs: {},
    query: transcript(messages),
    response_mode: input.stream ? "streaming" : "blocking",
    user: typeof json.user === "string" && json.user !== "" ? json.user : "api-user",
  };
  if (files.length > 0) body.files = files;
  return body;
}

/** A blocking answer `{answer, metadata: {usage}}` → `chat.completion`. */
export function difyToOpenAI(upstream: unknown, ids: AnswerContext): Obj {
  const parsed = DifyAnswer.safeParse(upstream);
  const r = parsed.success ? parsed.data : {};
  if (r.event === "error" || (r.code !== undefined && typeof r.message === "string" && r.answer === undefined)) {
    return openAIErrorBody(String(r.message ?? "Dify returned an error"), r.code ?? null);
  }
  return chatCompletion(ids, { content: typeof r.answer === "string" ? r.answer : "" }, "stop", r.metadata?.usage ?? null);
}

/** Per call: streaming events → chunks. */
export class DifyStream {
  private started = false;
  private agent = false;
  private replaced = false;
  /** Per agent_thought id: how much of its thought was sent, and whether its tool call and observation were. */
  private readonly thoughts = new Map<string, { thought: string; tool: boolean; observation: boolean }>();
  constructor(private readonly ids: AnswerContext) {}

  event(event: unknown): Obj | null {
    if (!isObj(event)) return null;
    const data: DifyEvent = event;
    switch (data.event) {
      case "agent_message":
        this.agent = true;
        return this.text(data.answer);
      case "message":
        // Agent apps close with one `message` that repeats the whole answer: not appended again.
        return this.agent ? null : this.text(data.answer);
      case "message_file":
        return data.type === "image" && typeof data.url === "string" ? this.text(`\n![image](${data.url})\n`) : null;
      case "agent_thought":
        return this.thought(data);
      case "message_replace": {
        if (typeof data.answer !== "string") return null;
        this.replaced = true;
        return this.text(this.started ? `\n\n${data.answer}` : data.answer);
      }
      case "message_end": {
        const usage = isObj(data.metadata) && isObj(data.metadata.usage) ? data.metadata.usage : null;
        return chatChunk(this.ids, {}, this.replaced ? "content_filter" : "stop", usage);
      }
      case "error":
        return openAIErrorBody(String(data.message ?? "Dify stream error"), typeof data.code === "string" ? data.code : null);
      case "ping":
      case "workflow_started":
      case "node_started":
      case "node_finished":
      case "workflow_finished":
      case "tts_message":
      case "tts_message_end":
        return null;
      default:
        countUnknownEvent("dify", String(data.event));
        return null;
    }
  }

  /** A tool round's new reasoning: the thought's unsent part, the call, the observation. */
  private thought(data: DifyEvent): Obj | null {
    const tool = typeof data.tool === "string" ? data.tool : "";
    if (tool === "") return null;
    const id = typeof data.id === "string" ? data.id : String(data.position ?? "");
    const seen = this.thoughts.get(id) ?? { thought: "", tool: false, observation: false };
    this.thoughts.set(id, seen);
    let out = "";
    const thought = typeof data.thought === "string" ? data.thought : "";
    if (thought !== "" && thought !== seen.thought) {
      out += thought.startsWith(seen.thought) ? thought.slice(seen.thought.length) : `\n${thought}`;
      seen.thought = thought;
    }
    if (!seen.tool) {
      seen.tool = true;
      const input = typeof data.tool_input === "string" && data.tool_input !== "" ? ` ${data.tool_input}` : "";
      out += `${out === "" ? "" : "\n"}→ ${tool}${input}\n`;
    }
    const observation = typeof data.observation === "string" ? data.observation : "";
    if (observation !== "" && !seen.observation) {
      seen.observation = true;
      out += `← ${observation}\n`;
    }
    if (out === "") return null;
    const delta: Obj = this.started ? { reasoning_content: out } : { role: "assistant", reasoning_content: out };
    this.started = true;
    return chatChunk(this.ids, delta);
  }

  private text(answer: unknown): Obj | null {
    if (typeof answer !== "string" || answer === "") return null;
    const delta: Obj = this.started ? { content: answer } : { role: "assistant", content: answer };
    this.started = true;
    return chatChunk(this.ids, delta);
  }
}

export const dify: ProviderAdapter = {
  supportedModes,
  buildRequest(input: BuildRequestInput): UpstreamRequest {
    if (!supportedModes.has(input.mode)) throw unsupportedMode(name, input.channel.type, input.mode);
    const base = baseUrlOf(input, defaultBaseUrl, name);
    const ids = answerContext(input.upstreamModel);
    const stream = new DifyStream(ids);
    return {
      method: "POST",
      // The API's base is `…/v1`; a channel may give it with or without that suffix.
      url: `${base.replace(/\/v1$/, "")}/v1/chat-messages`,
      headers: {
        "Content-Type": "application/json",
        Accept: input.stream ? "text/event-stream" : "application/json",
        Authorization: `Bearer ${input.channel.key}`,
      },
      body: JSON.stringify(toDifyRequest(input)),
      forcedIncludeUsage: false,
      response: {
        json: (upstream) => jsonAnswer(difyToOpenAI(upstream, ids)),
        streamEvent: (data) => stream.event(data),
      },
    };
  },
};
