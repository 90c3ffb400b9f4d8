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
import { outputLimit } from "@/lib/billing/output-limits";

export type AnthropicBlock = Obj & { type: string };
export interface AnthropicMessage {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

export interface AnthropicMessagesOptions {
  /** Images of the prompt's http(s) URLs, already fetched; `data:` URLs are decoded here. */
  images?: ReadonlyMap<string, UserImage>;
  /**
   * The most tokens one answer may hold on this channel (providers/output-limit.ts), null when
   * unknown; left out, the catalogue's limit for the model (lib/billing/output-limits.ts).
   */
  outputLimit?: number | null;
  /**
   * The upstream takes Claude's structured output (`output_config.format`): Anthropic's own API
   * does; for Bedrock and Vertex the schema goes into the system prompt instead.
   */
  structuredOutput?: boolean;
}

/** A Claude request body and the canonical request's features it left out (`x-qiao-dropped`). */
export interface ClaudeRequest {
  body: Obj;
  dropped: string[];
}

/** Output budget when the client sets none: what each model family can write in one answer. */
export function defaultMaxTokens(model: string): number {
  if (/claude-(3-[57]|(sonnet|opus|haiku)-4|[a-z]+-4)/.test(model)) return 8192;
  return 4096;
}

/**
 * `reasoning_effort` → a thinking budget in tokens (`xhigh`, OpenAI's level above high, as high).
 * `none` and `minimal` (and anything unknown) ask for none; Anthropic's smallest budget is 1024.
 */
export const THINKING_BUDGET: Readonly<Record<string, number>> = { low: 2048, medium: 8192, high: 24576, xhigh: 24576 };
const MIN_THINKING_BUDGET = 1024;

/**
 * A Claude model's generation as major * 100 + minor (claude-3-7-sonnet → 307, claude-opus-4-1 →
 * 401, claude-sonnet-4-5-20250929 → 405, claude-sonnet-4-20250514 → 400), from any vendor's
 * spelling of the id (Bedrock's `us.anthropic.…-v1:0`, Vertex's `…@20250929`); null for a name that
 * is not Claude's.
 */
export function claudeGeneration(model: string): number | null {
  const m = model.toLowerCase();
  const at = m.indexOf("claude-");
  if (at < 0) return null;
  const rest = m.slice(at + "claude-".length);
  // Before Claude 4 the version came first (claude-3-5-sonnet), since then the family does.
  const old = /^(\d+)(?:-(\d))?-[a-z]/.exec(rest);
  const current = old ? null : /^[a-z]+-(\d+)(?:[-.](\d{1,2})(?!\d))?/.exec(rest);
  const v = old ?? current;
  if (!v) return null;
  return Number(v[1]) * 100 + Number(v[2] ?? 0);
}

/** Extended thinking came with Claude 3.7 Sonnet; every later model has it. */
export const supportsThinking = (model: string): boolean => (claudeGeneration(model) ?? 0) >= 307;

/** Structured output (`output_config.format`) came with Claude Opus 4.1 and the 4.5 models. */
export const supportsStructuredOutput = (model: string): boolean => (claudeGeneration(model) ?? 0) >= 401;

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

/**
 * Thinking asked for by `thinking` (Anthropic's own shape, which some OpenAI clients send) or
 * `reasoning_effort`: its budget (0 for none) and the canonical member that asked, for naming it
 * when it cannot be honoured.
 */
function thinkingAsked(canonical: Obj): { budget: number; asker: string } {
  const t = canonical.thinking;
  if (isObj(t)) {
    if (t.type !== "enabled") return { budget: 0, asker: "thinking" };
    const budget = typeof t.budget_tokens === "number" && t.budget_tokens > 0 ? Math.floor(t.budget_tokens) : THINKING_BUDGET.medium!;
    return { budget, asker: "thinking" };
  }
  const effort = canonical.reasoning_effort;
  const budget = typeof effort === "string" && Object.hasOwn(THINKING_BUDGET, effort) ? THINKING_BUDGET[effort]! : 0;
  return { budget, asker: "reasoning_effort" };
}

/**
 * Anthropic refuses thinking in a tool loop whose last assistant turn holds no thinking block ("a
 * final assistant message must start with a thinking block"): the canonical history carries no
 * thinking blocks, so a turn that continues after a tool call goes without thinking.
 */
function continuesToolCall(messages: AnthropicMessage[]): boolean {
  const lastAssistant = messages.findLast((m) => m.role === "assistant");
  return lastAssistant?.content.some((b) => b.type === "tool_use") ?? false;
}

/** The JSON schema of `response_format` (json_schema), `{}` for json_object, null for neither. */
function responseSchema(format: unknown): Obj | null {
  if (!isObj(format)) return null;
  if (format.type === "json_object") return {};
  if (format.type !== "json_schema" || !isObj(format.json_schema)) return null;
  return isObj(format.json_schema.schema) ? format.json_schema.schema : {};
}

/** What Claude is told when its API cannot hold it to the JSON (schema) the caller asked for. */
function jsonInstruction(schema: Obj): string {
  if (Object.keys(schema).length === 0) return "Respond with a single JSON object and nothing else.";
  return `Respond with a single JSON object and nothing else, valid against this JSON schema:\n${JSON.stringify(schema)}`;
}

const positiveInt = (v: unknown): number | null => (typeof v === "number" && Number.isInteger(v) && v > 0 ? v : null);

/**
 * The Anthropic Messages body for `canonical` (an OpenAI chat completions body) and `model`.
 * - System and developer messages anywhere → `system`, in order (Claude has no system role in
 *   `messages`): one string, or text blocks when there are several.
 * - `max_tokens`: the client's `max_tokens` or `max_completion_tokens`, else `defaultMaxTokens`;
 *   never above the model's output limit (`opts.outputLimit`).
 * - Thinking (`thinking: {type:"enabled", budget_tokens}` or `reasoning_effort` low/medium/high →
 *   2048/8192/24576) on a model that thinks (Claude 3.7 and later): with no client limit,
 *   max_tokens becomes budget + the model's default; the budget is always below max_tokens, and
 *   dropped when less than 1024 would remain. While thinking, temperature and top_k are left out
 *   and top_p kept only from 0.95 up (Anthropic refuses the rest then). Dropped, and named, on an
 *   older model, with a forced tool choice, or in a tool loop (continuesToolCall).
 * - `response_format` json_schema → `output_config.format` where the upstream takes it
 *   (`opts.structuredOutput` and Claude Opus 4.1 / 4.5 and later); elsewhere, and for json_object,
 *   an instruction with the schema after the system prompt, `response_format` named as dropped.
 * - `temperature` is clamped to Anthropic's 0..1; `top_p`, `top_k` pass as they are.
 * - `stop` → `stop_sequences`; `user` → `metadata.user_id`; `stream` when asked.
 * - Not carried (Claude has no equivalent): `n`, `logprobs`, `seed`, penalties.
 * Throws a 400 RelayError for a body no Claude model could take.
 */
export function claudeRequest(canonical: Obj, model: string, opts: AnthropicMessagesOptions = {}): ClaudeRequest {
  const dropped: string[] = [];
  const { system, messages } = convertMessages(canonical.messages, opts.images);
  const body: Obj = { model, messages };

  const format = canonical.response_format;
  const schema = responseSchema(format);
  const systemParts = system === undefined ? [] : typeof system === "string" ? [{ type: "text", text: system }] : system;
  if (schema !== null) {
    const native = isObj(format) && format.type === "json_schema" && opts.structuredOutput === true && supportsStructuredOutput(model);
    if (native) body.output_config = { format: { type: "json_schema", schema } };
    else {
      systemParts.push({ type: "text", text: jsonInstruction(schema) });
      dropped.push("response_format");
    }
  }
  if (systemParts.length === 1) body.system = systemParts[0]!.text;
  else if (systemParts.length > 1) body.system = systemParts;

  const limit = opts.outputLimit === undefined ? outputLimit(model) : opts.outputLimit;
  const clientMax = positiveInt(canonical.max_tokens) ?? positiveInt(canonical.max_completion_tokens);
  let maxTokens = clientMax ?? defaultMaxTokens(model);
  const asked = thinkingAsked(canonical);
  let budget = asked.budget;
  const forcedTool = canonical.tool_choice === "required" || isObj(canonical.tool_choice);
  if (budget > 0 && (!supportsThinking(model) || forcedTool || continuesToolCall(messages))) budget = 0;
  else if (budget > 0 && clientMax === null) maxTokens = budget + defaultMaxTokens(model);
  if (limit !== null && maxTokens > limit) maxTokens = limit;
  if (budget >= maxTokens) budget = maxTokens - 1;
  if (budget < MIN_THINKING_BUDGET) budget = 0;
  if (asked.budget > 0 && budget === 0) dropped.push(asked.asker);
  body.max_tokens = maxTokens;
  if (budget > 0) body.thinking = { type: "enabled", budget_tokens: budget };

  if (typeof canonical.temperature === "number" && budget === 0) body.temperature = Math.min(1, Math.max(0, canonical.temperature));
  if (typeof canonical.top_p === "number" && (budget === 0 || canonical.top_p >= 0.95)) body.top_p = canonical.top_p;
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
  return { body, dropped };
}

/** The body alone (claudeRequest), for callers that do not report what was left out. */
export function anthropicMessages(canonical: Obj, model: string, opts: AnthropicMessagesOptions = {}): Obj {
  return claudeRequest(canonical, model, opts).body;
}
