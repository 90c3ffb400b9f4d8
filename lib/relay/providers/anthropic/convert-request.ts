// The canonical request (an OpenAI chat completions body) → an Anthropic Messages request body.
// Pure and free of URLs and credentials, so every channel that serves Claude (Anthropic, Bedrock,
// Vertex) builds its body here. Prompt images given by http(s) URL are fetched by the caller
// first (`remoteImageUrls` → `fetchUserImage`) and handed in as `images`: Bedrock and Vertex do
// not take Anthropic's `url` image source, and fetching through the SSRF guard keeps one rule for
// every Claude channel.
import { isObj, type Obj } from "@/lib/obj";
import { textNestsTooDeep, tooDeep } from "@/lib/relay/request/json-depth";
import type { UserImage } from "@/lib/net/fetch-url";
import { RelayError } from "../../errors";
import { imageUrlOf } from "../../request/images";

export type AnthropicBlock = Obj & { type: string };
export interface AnthropicMessage {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

export interface AnthropicMessagesOptions {
  /** Images of the prompt's http(s) URLs, already fetched; `data:` URLs are decoded here. */
  images?: ReadonlyMap<string, UserImage>;
}

/** Output budget when the client sets none: what each model family can write in one answer. */
export function defaultMaxTokens(model: string): number {
  if (/claude-(3-[57]|(sonnet|opus|haiku)-4|[a-z]+-4)/.test(model)) return 8192;
  return 4096;
}

/**
 * `reasoning_effort` → a thinking budget in tokens. `minimal` (and anything unknown) asks for none;
 * Anthropic's smallest allowed budget is 1024.
 */
export const THINKING_BUDGET: Readonly<Record<string, number>> = { low: 2048, medium: 8192, high: 16384 };
const MIN_THINKING_BUDGET = 1024;

function badRequest(message: string, param: string | null = null): RelayError {
  return new RelayError(400, message, { type: "invalid_request_error", code: "invalid_request", param });
}

const DATA_URL = /^data:([^;,]+)?((?:;[^;,]+)*?);base64,(.*)$/s;

function imageBlock(part: Obj, images: ReadonlyMap<string, UserImage> | undefined): AnthropicBlock {
  const url = imageUrlOf(part);
  if (!url) throw badRequest("image_url part without a url", "messages");
  const data = DATA_URL.exec(url);
  let image: UserImage | undefined;
  if (data) {
    const mediaType = (data[1] ?? "").toLowerCase();
    if (!mediaType.startsWith("image/")) throw badRequest("图片地址指向的不是图片", "messages");
    image = { mediaType, base64: data[3]!.replace(/\s+/g, "") };
  } else {
    image = images?.get(url);
  }
  if (!image) throw badRequest("image_url must be a data: URL or an http(s) URL", "messages");
  return { type: "image", source: { type: "base64", media_type: image.mediaType, data: image.base64 } };
}

/** Text of a content that may be a string or an array of parts (only text parts count). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((p): p is Obj => isObj(p) && p.type === "text" && typeof p.text === "string")
    .map((p) => p.text as string)
    .join("\n");
}

function userBlocks(content: unknown, images: ReadonlyMap<string, UserImage> | undefined): AnthropicBlock[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  if (!Array.isArray(content)) return [];
  const out: AnthropicBlock[] = [];
  for (const part of content) {
    if (!isObj(part)) continue;
    if (part.type === "text" && typeof part.text === "string") {
      if (part.text !== "") out.push({ type: "text", text: part.text });
    } else if (part.type === "image_url") {
      out.push(imageBlock(part, images));
    }
  }
  return out;
}

/** Tool arguments as an object; JSON that does not parse to an object becomes `{}`. */
function parseArguments(args: unknown): Obj {
  if (isObj(args)) return args;
  if (typeof args !== "string" || args.trim() === "") return {};
  if (textNestsTooDeep(args)) throw tooDeep("tool_calls[].function.arguments ");
  try {
    const v = JSON.parse(args);
    return isObj(v) ? v : {};
  } catch {
    return {};
  }
}

function assistantBlocks(m: Obj): AnthropicBlock[] {
  const out: AnthropicBlock[] = [];
  const text = textOf(m.content);
  if (text !== "") out.push({ type: "text", text });
  if (Array.isArray(m.tool_calls)) {
    for (const tc of m.tool_calls) {
      if (!isObj(tc) || !isObj(tc.function)) continue;
      const fn = tc.function;
      out.push({
        type: "tool_use",
        id: typeof tc.id === "string" ? tc.id : "",
        name: typeof fn.name === "string" ? fn.name : "",
        input: parseArguments(fn.arguments),
      });
    }
  }
  return out;
}

function toolResultBlock(m: Obj): AnthropicBlock {
  if (typeof m.tool_call_id !== "string" || m.tool_call_id === "") throw badRequest("tool message without tool_call_id", "messages");
  return { type: "tool_result", tool_use_id: m.tool_call_id, content: textOf(m.content) };
}

function systemOf(parts: string[]): string | AnthropicBlock[] | undefined {
  const nonEmpty = parts.filter((p) => p !== "");
  if (nonEmpty.length === 0) return undefined;
  if (nonEmpty.length === 1) return nonEmpty[0];
  return nonEmpty.map((text) => ({ type: "text", text }));
}

/**
 * System and developer messages → `system`; user, assistant and tool messages → Anthropic turns,
 * consecutive turns of one role merged (tool results join the user turn around them). A
 * conversation that opens with the assistant gets a "..." user turn first, as Anthropic requires.
 */
export function convertMessages(
  messages: unknown,
  images?: ReadonlyMap<string, UserImage>,
): { system?: string | AnthropicBlock[]; messages: AnthropicMessage[] } {
  if (!Array.isArray(messages) || messages.length === 0) throw badRequest("messages must be a non-empty array", "messages");
  const system: string[] = [];
  const out: AnthropicMessage[] = [];
  const push = (role: AnthropicMessage["role"], blocks: AnthropicBlock[]) => {
    if (blocks.length === 0) return;
    const last = out.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (!isObj(m)) throw badRequest("each message must be an object", "messages");
    switch (m.role) {
      case "system":
      case "developer":
        system.push(textOf(m.content));
        break;
      case "user":
        push("user", userBlocks(m.content, images));
        break;
      case "assistant":
        push("assistant", assistantBlocks(m));
        break;
      case "tool":
        push("user", [toolResultBlock(m)]);
        break;
      default:
        throw badRequest(`unsupported message role: ${String(m.role)}`, "messages");
    }
  }
  if (out.length === 0) throw badRequest("messages hold no user or assistant content", "messages");
  if (out[0]!.role === "assistant") out.unshift({ role: "user", content: [{ type: "text", text: "..." }] });
  return { system: systemOf(system), messages: out };
}

function convertTools(tools: unknown): Obj[] | undefined {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  const out: Obj[] = [];
  for (const t of tools) {
    if (!isObj(t) || t.type !== "function" || !isObj(t.function)) continue;
    const fn = t.function;
    if (typeof fn.name !== "string") throw badRequest("tool function without a name", "tools");
    const tool: Obj = { name: fn.name };
    if (typeof fn.description === "string") tool.description = fn.description;
    tool.input_schema = isObj(fn.parameters) ? fn.parameters : { type: "object", properties: {} };
    out.push(tool);
  }
  return out.length > 0 ? out : undefined;
}

function convertToolChoice(choice: unknown, parallel: unknown): Obj | undefined {
  let out: Obj | undefined;
  if (choice === "auto") out = { type: "auto" };
  else if (choice === "required") out = { type: "any" };
  else if (choice === "none") out = { type: "none" };
  else if (isObj(choice) && isObj(choice.function) && typeof choice.function.name === "string")
    out = { type: "tool", name: choice.function.name };
  if (parallel === false) {
    out ??= { type: "auto" };
    if (out.type !== "none") out.disable_parallel_tool_use = true;
  }
  return out;
}

/** Thinking budget asked for by `thinking` (Anthropic's own shape) or `reasoning_effort`, or 0. */
function thinkingBudget(canonical: Obj): number {
  const t = canonical.thinking;
  if (isObj(t)) {
    if (t.type !== "enabled") return 0;
    return typeof t.budget_tokens === "number" && t.budget_tokens > 0 ? Math.floor(t.budget_tokens) : THINKING_BUDGET.medium!;
  }
  const effort = canonical.reasoning_effort;
  return typeof effort === "string" && Object.hasOwn(THINKING_BUDGET, effort) ? THINKING_BUDGET[effort]! : 0;
}

const positiveInt = (v: unknown): number | null => (typeof v === "number" && Number.isInteger(v) && v > 0 ? v : null);

/**
 * The Anthropic Messages body for `canonical` (an OpenAI chat completions body) and `model`.
 * - `max_tokens`: the client's `max_tokens` or `max_completion_tokens`, else `defaultMaxTokens`.
 * - Thinking (`thinking: {type:"enabled", budget_tokens}` or `reasoning_effort` low/medium/high →
 *   2048/8192/16384): with no client limit, max_tokens becomes budget + the model's default; with a
 *   client limit the budget is cut to fit under it, and dropped when less than 1024 would remain.
 *   While thinking, temperature and top_k are left out (Anthropic refuses them then).
 * - `temperature` is clamped to Anthropic's 0..1; `top_p`, `top_k` pass as they are.
 * - `stop` → `stop_sequences`; `user` → `metadata.user_id`; `stream` when asked.
 * - Not carried (Claude has no equivalent): `n`, `logprobs`, `response_format`, `seed`, penalties.
 * Throws a 400 RelayError for a body no Claude model could take.
 */
export function anthropicMessages(canonical: Obj, model: string, opts: AnthropicMessagesOptions = {}): Obj {
  const { system, messages } = convertMessages(canonical.messages, opts.images);
  const body: Obj = { model, messages };
  if (system !== undefined) body.system = system;

  const clientMax = positiveInt(canonical.max_tokens) ?? positiveInt(canonical.max_completion_tokens);
  let maxTokens = clientMax ?? defaultMaxTokens(model);
  let budget = thinkingBudget(canonical);
  if (budget > 0) {
    if (clientMax === null) maxTokens = budget + defaultMaxTokens(model);
    else if (budget >= clientMax) budget = clientMax - 1;
    if (budget < MIN_THINKING_BUDGET) budget = 0;
  }
  body.max_tokens = maxTokens;
  if (budget > 0) body.thinking = { type: "enabled", budget_tokens: budget };

  if (typeof canonical.temperature === "number" && budget === 0) body.temperature = Math.min(1, Math.max(0, canonical.temperature));
  if (typeof canonical.top_p === "number") body.top_p = canonical.top_p;
  if (typeof canonical.top_k === "number" && budget === 0) body.top_k = canonical.top_k;
  const stop = typeof canonical.stop === "string" ? [canonical.stop] : Array.isArray(canonical.stop) ? canonical.stop : [];
  const sequences = stop.filter((s): s is string => typeof s === "string" && s.trim() !== "");
  if (sequences.length > 0) body.stop_sequences = sequences;

  const tools = convertTools(canonical.tools);
  if (tools) {
    body.tools = tools;
    const choice = convertToolChoice(canonical.tool_choice, canonical.parallel_tool_calls);
    if (choice) body.tool_choice = choice;
  }
  if (typeof canonical.user === "string" && canonical.user !== "") body.metadata = { user_id: canonical.user };
  if (canonical.stream === true) body.stream = true;
  return body;
}
