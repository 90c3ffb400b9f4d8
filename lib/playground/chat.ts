// The playground's conversation (spec §2 Playground, §4 Playground message, §7, §8, §9): its
// defaults, the message states (loading → incomplete while streaming → complete or error), the
// request body of POST /pg/chat/completions and how one streamed event reads. Pure, for the page
// and its tests.

/** Spec §9: the model chosen when the group offers it. */
export const DEFAULT_MODEL = "gpt-4o-mini";
/** Spec §9: a generic helpful-assistant system prompt (the original console's wording). */
export const DEFAULT_SYSTEM_PROMPT =
  "You are a helpful assistant. You can help me by answering my questions. You can also ask me questions.";
/** Spec §5: the temperature slider runs 0.1 to 1 in steps of 0.1. */
export const TEMPERATURE = { min: 0.1, max: 1, step: 0.1, initial: 0.7 } as const;
/** The relay path the playground posts to: the endpoint table's. */
export { PLAYGROUND_PATH } from "@/lib/relay/endpoints";

export const PLAYGROUND_TEXT = {
  expired: "未登录或登录已过期，请重新登录！",
  unreachable: "无法正常连接至服务器！",
  emptyReply: "（没有回复内容）",
} as const;

export type MessageStatus = "loading" | "incomplete" | "complete" | "error";

export type ChatMessage = {
  id: string;
  role: "user" | "assistant";
  content: string;
  status: MessageStatus;
  /** The error data appended to a reply that ended in an error. */
  error?: string;
};

export type ChatAction =
  | { type: "send"; userId: string; assistantId: string; content: string }
  | { type: "delta"; id: string; text: string }
  | { type: "complete"; id: string }
  | { type: "error"; id: string; error: string }
  | { type: "clear" };

const finished = (m: ChatMessage) => m.status === "complete" || m.status === "error";

/** The conversation after one event. A finished reply never changes again (a [DONE] after an error). */
export function chatReducer(messages: ChatMessage[], action: ChatAction): ChatMessage[] {
  switch (action.type) {
    case "send":
      return [
        ...messages,
        { id: action.userId, role: "user", content: action.content, status: "complete" },
        { id: action.assistantId, role: "assistant", content: "", status: "loading" },
      ];
    case "clear":
      return [];
    default:
      return messages.map((m) => (m.id === action.id && !finished(m) ? step(m, action) : m));
  }
}

function step(m: ChatMessage, action: Exclude<ChatAction, { type: "send" | "clear" }>): ChatMessage {
  if (action.type === "delta") return action.text ? { ...m, content: m.content + action.text, status: "incomplete" } : m;
  if (action.type === "complete") return { ...m, status: "complete" };
  return { ...m, status: "error", error: action.error };
}

/** True while some reply is still loading or streaming. */
export const isBusy = (messages: ChatMessage[]) => messages.some((m) => !finished(m));

export type PlaygroundSettings = {
  group: string;
  model: string;
  temperature: number;
  /** null: not sent (the model's own limit). */
  maxTokens: number | null;
  systemPrompt: string;
};

/**
 * The body of POST /pg/chat/completions (spec §7) for the conversation so far. Failed and empty
 * replies are left out: the model should not read error texts as its own words.
 */
export function buildRequest(settings: PlaygroundSettings, messages: ChatMessage[]): Record<string, unknown> {
  const history = messages
    .filter((m) => m.role === "user" || (m.status !== "error" && m.content !== ""))
    .map((m) => ({ role: m.role, content: m.content }));
  const system = settings.systemPrompt.trim() ? [{ role: "system", content: settings.systemPrompt }] : [];
  const body: Record<string, unknown> = {
    messages: [...system, ...history],
    stream: true,
    model: settings.model,
    group: settings.group,
    temperature: settings.temperature,
  };
  if (settings.maxTokens !== null) body.max_tokens = settings.maxTokens;
  return body;
}

export type StreamEvent = { kind: "delta"; text: string } | { kind: "done" } | { kind: "error"; error: string } | { kind: "other" };

/** One `data:` payload of the stream: a content delta, the [DONE] marker, or an error event. */
export function readEvent(data: string): StreamEvent {
  if (data.trim() === "[DONE]") return { kind: "done" };
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return { kind: "error", error: data };
  }
  if (!json || typeof json !== "object") return { kind: "other" };
  const obj = json as { error?: unknown; choices?: Array<{ delta?: { content?: unknown } }> };
  if (obj.error !== undefined && obj.error !== null) return { kind: "error", error: errorMessage(obj.error) ?? data };
  const content = obj.choices?.[0]?.delta?.content;
  return typeof content === "string" && content !== "" ? { kind: "delta", text: content } : { kind: "other" };
}

function errorMessage(error: unknown): string | null {
  if (typeof error === "string") return error || null;
  if (error && typeof error === "object") {
    const message = (error as { message?: unknown }).message;
    if (typeof message === "string" && message) return message;
  }
  return null;
}

/** The error data of a refused request: the relay's OpenAI error message, or the body itself. */
export function refusalText(status: number, body: string): string {
  if (status === 401) return PLAYGROUND_TEXT.expired;
  try {
    const json = JSON.parse(body) as { error?: unknown; message?: unknown };
    const message = errorMessage(json.error) ?? (typeof json.message === "string" && json.message ? json.message : null);
    if (message) return message;
  } catch {
    // not JSON: the body as sent
  }
  return body.trim() || `HTTP ${status}`;
}

/** The model to show for a group: the current one if the group has it, else the default, else the first. */
export function pickModel(models: string[], current: string): string {
  if (current && models.includes(current)) return current;
  if (models.includes(DEFAULT_MODEL)) return DEFAULT_MODEL;
  return models[0] ?? "";
}
