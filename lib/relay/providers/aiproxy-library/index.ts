// AI Proxy's knowledge base: `POST {base}/api/library/ask` with the key in `Api-Key` and the
// library id from the channel's `other`. The answer's documents are appended to it as a reference
// list. AI Proxy reports no token usage: the relay counts it locally.
import { CHANNEL_CATALOG, CHANNEL_TYPES } from "@/lib/channels/catalog";
import { RelayError } from "../../errors";
import type { RelayMode } from "../../types";
import { isObj, type Obj } from "@/lib/obj";
import { answerContext, type AnswerContext, chatChunk, chatCompletion, jsonAnswer, openAIErrorBody } from "../convert-shared";
import { chatRequest, transcript } from "../flat-chat";
import { baseUrlOf, unsupportedMode } from "../openai-compatible";
import type { BuildRequestInput, ProviderAdapter, UpstreamRequest } from "../types";
import { countUnknownEvent } from "../unknown-events";
import { LibraryAnswer, LibraryError, type LibraryEvent } from "./api";

const { name, baseUrl: defaultBaseUrl } = CHANNEL_CATALOG[CHANNEL_TYPES.AIProxyLibrary];
const supportedModes = new Set<RelayMode>(["chat"]);

/** `documents: [{title, url}]` → a Markdown reference list to append, or "". */
export function referenceList(documents: unknown): string {
  if (!Array.isArray(documents)) return "";
  const lines = documents
    .filter(isObj)
    .map((d) => {
      const title = typeof d.title === "string" && d.title !== "" ? d.title : String(d.url ?? "");
      return typeof d.url === "string" && d.url !== "" ? `- [${title}](${d.url})` : `- ${title}`;
    })
    .filter((l) => l !== "- ");
  return lines.length > 0 ? `\n\n参考文档：\n${lines.join("\n")}` : "";
}

function libraryError(r: LibraryError): Obj {
  return openAIErrorBody(r.errMsg || r.message || "AI Proxy knowledge base returned an error", r.errCode ?? null);
}

/** `{success, answer, documents, errCode, errMsg}` → `chat.completion` (or OpenAI's error). */
export function libraryToOpenAI(upstream: unknown, ids: AnswerContext): Obj {
  const parsed = LibraryAnswer.safeParse(upstream);
  const r = parsed.success ? parsed.data : {};
  if (r.success !== true) return libraryError(r);
  return chatCompletion(ids, { content: (r.answer ?? "") + referenceList(r.documents) }, "stop");
}

/** Per call: stream events `{content, finish, documents?}` → chunks. */
export class LibraryStream {
  private started = false;
  constructor(private readonly ids: AnswerContext) {}

  event(event: unknown): Obj | null {
    if (!isObj(event)) return null;
    const data: LibraryEvent = event;
    // The one error event of a stream is parsed whole; the others are read by hand.
    if (data.success === false) return libraryError(LibraryError.parse(data));
    const finish = data.finish === true;
    if (typeof data.content !== "string" && !finish) {
      countUnknownEvent("aiproxy-library", "no-content");
      return null;
    }
    let content = typeof data.content === "string" ? data.content : "";
    if (finish) content += referenceList(data.documents);
    if (content === "" && !finish) return null;
    const delta: Obj = this.started ? { content } : { role: "assistant", content };
    this.started = true;
    return chatChunk(this.ids, delta, finish ? "stop" : null);
  }
}

export const aiproxyLibrary: ProviderAdapter = {
  supportedModes,
  buildRequest(input: BuildRequestInput): UpstreamRequest {
    if (!supportedModes.has(input.mode)) throw unsupportedMode(name, input.channel.type, input.mode);
    const libraryId = input.channel.other.trim();
    if (libraryId === "") {
      throw new RelayError(500, `channel #${input.channel.id} (${name}) needs its knowledge base id in the "other" field`, {
        code: "channel_misconfigured",
        local: false,
      });
    }
    const base = baseUrlOf(input, defaultBaseUrl, name);
    const { messages } = chatRequest(input);
    const ids = answerContext(input.upstreamModel);
    const stream = new LibraryStream(ids);
    return {
      method: "POST",
      url: `${base}/api/library/ask`,
      headers: {
        "Content-Type": "application/json",
        Accept: input.stream ? "text/event-stream" : "application/json",
        "Api-Key": input.channel.key,
      },
      body: JSON.stringify({ model: input.upstreamModel, query: transcript(messages), libraryId, stream: input.stream }),
      forcedIncludeUsage: false,
      response: {
        json: (upstream) => jsonAnswer(libraryToOpenAI(upstream, ids)),
        streamEvent: (data) => stream.event(data),
      },
    };
  },
};
