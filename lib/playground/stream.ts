// The playground's call: POST /pg/chat/completions with the session cookie and the New-Api-User
// header (spec §7), its server-sent events read with eventsource-parser. Browser-side; the reading
// part takes any byte stream, so tests feed it directly.
import { createParser } from "eventsource-parser";
import { PLAYGROUND_PATH, PLAYGROUND_TEXT, readEvent, refusalText } from "@/lib/playground/chat";

export type ChatOutcome =
  /** [DONE], or the stream ended without it: what arrived is the reply. */
  | { kind: "done" }
  /** The user pressed stop. */
  | { kind: "aborted" }
  /** `status` is the HTTP status of a refused request; absent for an error inside the stream. */
  | { kind: "error"; error: string; status?: number };

const isAbort = (error: unknown) => (error as { name?: unknown } | null)?.name === "AbortError";

/** Reads a chat completion stream, handing each content delta to `onDelta`, until its outcome. */
export async function readChatStream(stream: ReadableStream<Uint8Array>, onDelta: (text: string) => void): Promise<ChatOutcome> {
  let outcome: ChatOutcome | null = null;
  const parser = createParser({
    onEvent(event) {
      if (outcome) return;
      const read = readEvent(event.data);
      if (read.kind === "delta") onDelta(read.text);
      else if (read.kind === "done") outcome = { kind: "done" };
      else if (read.kind === "error") outcome = { kind: "error", error: read.error };
    },
  });
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  let ended = false;
  try {
    while (!outcome) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        parser.feed(decoder.decode());
        break;
      }
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    // An outcome before the end (an error event, then [DONE]): nothing more is wanted.
    if (!ended) reader.cancel().catch(() => {});
  }
  return outcome ?? { kind: "done" };
}

/** Sends one turn of the conversation; `signal` is the stop button. */
export async function streamChat(
  userId: number,
  body: Record<string, unknown>,
  signal: AbortSignal,
  onDelta: (text: string) => void,
): Promise<ChatOutcome> {
  let response: Response;
  try {
    response = await fetch(PLAYGROUND_PATH, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", "New-Api-User": String(userId) },
      body: JSON.stringify(body),
      credentials: "same-origin",
      cache: "no-store",
      signal,
    });
  } catch (error) {
    return isAbort(error) || signal.aborted ? { kind: "aborted" } : { kind: "error", error: PLAYGROUND_TEXT.unreachable };
  }
  if (!response.ok || !response.body) {
    const text = await response.text().catch(() => "");
    return { kind: "error", status: response.status, error: refusalText(response.status, text) };
  }
  try {
    return await readChatStream(response.body, onDelta);
  } catch (error) {
    if (isAbort(error) || signal.aborted) return { kind: "aborted" };
    return { kind: "error", error: PLAYGROUND_TEXT.unreachable };
  }
}
