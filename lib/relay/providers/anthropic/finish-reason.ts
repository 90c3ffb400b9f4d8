// Anthropic's stop_reason → OpenAI's finish_reason, for whole answers and streams alike.

/** Anthropic's stop_reason → OpenAI's finish_reason (null while there is none yet). */
export function finishReason(stop: unknown): string | null {
  switch (stop) {
    case "end_turn":
    case "stop_sequence":
    case "pause_turn":
      return "stop";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    default:
      return typeof stop === "string" && stop !== "" ? "stop" : null;
  }
}
