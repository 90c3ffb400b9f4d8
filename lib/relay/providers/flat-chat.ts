// Reading the canonical request for the adapters whose vendors take a chat in their own shape
// (Spark, Cohere, Dify, AI Proxy's knowledge base): each message's text and images, and the whole
// conversation as one text for single-query vendors. The answers they convert back into are
// written with convert-shared.ts. Pure.
import { RelayError } from "../errors";
import { parseJsonObject } from "../request/json-body";
import { isObj, type Obj } from "@/lib/obj";
import { withinOutputLimit } from "./output-limit";
import type { BuildRequestInput } from "./types";

export interface RequestMessage {
  role: string;
  /** The message's text (text parts joined; images and other parts left out). */
  text: string;
  /** Image URLs of `image_url` parts. */
  images: string[];
  raw: Obj;
}

/** The request's JSON and its messages; 400 when there are none. */
export function chatRequest(input: BuildRequestInput): { json: Obj; messages: RequestMessage[] } {
  const json = withinOutputLimit(input.json ?? parseJsonObject(input.body), input.channel, input.upstreamModel);
  const list = Array.isArray(json.messages) ? json.messages : [];
  const messages: RequestMessage[] = [];
  for (const m of list) {
    if (!isObj(m)) continue;
    const { text, images } = contentParts(m.content);
    messages.push({ role: typeof m.role === "string" ? m.role : "user", text, images, raw: m });
  }
  if (messages.length === 0) {
    throw new RelayError(400, "messages must be a non-empty array", {
      type: "invalid_request_error",
      code: "invalid_messages",
      param: "messages",
    });
  }
  return { json, messages };
}

function contentParts(content: unknown): { text: string; images: string[] } {
  if (typeof content === "string") return { text: content, images: [] };
  const texts: string[] = [];
  const images: string[] = [];
  if (Array.isArray(content)) {
    for (const part of content) {
      if (!isObj(part)) continue;
      if (part.type === "text" && typeof part.text === "string") texts.push(part.text);
      else if (part.type === "image_url") {
        const url = isObj(part.image_url) ? part.image_url.url : part.image_url;
        if (typeof url === "string" && url !== "") images.push(url);
      }
    }
  }
  return { text: texts.join("\n"), images };
}

/** The whole conversation as one text ("SYSTEM: …\nUSER: …\nASSISTANT: …") for single-query vendors. */
export function transcript(messages: readonly RequestMessage[]): string {
  if (messages.length === 1 && messages[0]!.role === "user") return messages[0]!.text;
  return messages.map((m) => `${m.role.toUpperCase()}: ${m.text}`).join("\n");
}
