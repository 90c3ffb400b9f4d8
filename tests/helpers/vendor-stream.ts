// Replays a recorded vendor stream through an adapter's framing and event converter and the real
// stream relay (lib/relay/openai/stream-relay.ts), in small pieces so events span chunks, as the
// pipeline would: what the client receives, the usage billed, the error reported.
import { OpenAIStreamRelay } from "@/lib/relay/openai/stream-relay";
import type { UpstreamRequest } from "@/lib/relay/providers";

export function replayStream(upstream: UpstreamRequest, recorded: Uint8Array | string, pieceSize = 7) {
  const relay = new OpenAIStreamRelay({
    mode: "chat",
    model: "m",
    clientIncludeUsage: true,
    promptTokens: 0,
    requestId: "req-1",
    mapEvent: upstream.response?.streamEvent?.bind(upstream.response),
  });
  const bytes = typeof recorded === "string" ? Buffer.from(recorded) : Buffer.from(recorded);
  const decoder = new TextDecoder();
  let out = "";
  const take = (b: Uint8Array | null) => {
    if (b) out += decoder.decode(b, { stream: true });
  };
  for (let i = 0; i < bytes.length && !relay.done; i += pieceSize) {
    const piece = bytes.subarray(i, i + pieceSize);
    take(upstream.framing ? relay.transformFramed(upstream.framing, piece) : relay.transform(piece));
  }
  if (upstream.framing && !relay.done) take(relay.endFramed(upstream.framing));
  take(relay.finish());
  const events = out
    .split("\n\n")
    .filter((e) => e.startsWith("data: ") && e !== "data: [DONE]")
    .map((e) => JSON.parse(e.slice(6)) as Record<string, unknown>);
  return {
    out,
    events,
    text: relay.deliveredText,
    usage: relay.usage,
    error: relay.error,
    finishReason: relay.finishReason,
    sawUsage: relay.sawUpstreamUsage,
  };
}
