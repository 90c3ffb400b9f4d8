// One relay call's state, from the moment it is priced and reserved to its settlement: the
// request as read (ParsedBody), the caller, the pricing, the reservation and the channels tried.
// Every later stage (attempts.ts, whole-response.ts, stream-response.ts, settle.ts) takes it.
import type { OptionValues } from "@/lib/options";
import type { Reservation } from "@/lib/billing/ledger";
import type { CallLimits } from "@/lib/limits/engine";
import type { Pricing } from "@/lib/billing/ratios";
import type { RelayCaller } from "@/lib/relay/memory/key-auth";
import type { RelayRequest } from "@/lib/relay/http";
import type { InboundCall } from "@/lib/relay/inbound";
import type { RelayErrorData } from "@/lib/relay/request/request-body";
import { promptBound, promptQuickBound, type UsageAnomaly } from "@/lib/billing/usage-bounds";
import { countJsonPromptTokens, countPromptPlan, type PromptPlan } from "@/lib/relay/openai/token-count";
import type { RelayMode } from "@/lib/relay/types";
import type { ChosenKey } from "@/lib/relay/memory/channel-keys";

const NOTHING_DROPPED: readonly string[] = [];

/** The request's body as the pipeline read it (parse-request.ts). */
export type ParsedBody = {
  json: Record<string, unknown> | null;
  model: string;
  stream: boolean;
  contentType: string;
  /** transcriptions/translations: the form's `response_format`. */
  responseFormat?: string;
  /** The reservation's prompt estimate, when it was made where the body was read (another protocol's call). */
  reserveTokens?: number;
  /** A large body (LARGE_BODY_BYTES or more), read in one go (summariseJsonBody): what was found. */
  large?: { rulesError: RelayErrorData | null; reserveTokens: number; prompt: PromptPlan; sensitiveWord: string | null };
};

/**
 * One relay call's state. A class, not an object literal: V8 builds a literal with a getter
 * through a slow runtime path (~0.4 µs), a class instance in a few nanoseconds.
 */
export class CallContext {
  readonly tried: number[] = [];
  private counted: number | undefined;
  /** Set when the upstream's usage was over the call's bounds (settle.ts billableUsage). */
  usageAnomaly: UsageAnomaly | null = null;
  /** What the answering attempt's converted request left out (attempts.ts): `x-qiao-dropped`. */
  dropped: readonly string[] = NOTHING_DROPPED;
  /** The caller's session, hashed (lib/relay/memory/session-sticky.ts): the log row's `session`. */
  session: string | null = null;
  /** The session's sticky channel answered: the log row's `sticky`. */
  sticky = false;
  /** The call's hold on its request limits (lib/limits/engine.ts), released at settlement. */
  limits: CallLimits | null = null;
  /** Routing bookkeeping (lib/relay/routing/attempt.ts): the answering channel, in flight until settled. */
  answering: number | null = null;
  /** When the current attempt was sent (ms). */
  attemptAt = 0;
  /** Channels whose breaker this call's failures opened: the log row's `breaker_opened`. */
  breakerOpened: number[] | null = null;
  /** Open channels the choice passed over: the log row's `breaker_skipped`. */
  breakerSkipped: Set<number> | null = null;
  /** A multi-key channel's key this attempt used (attempts.ts): its auto-disable, usage and log fields. */
  channelKey: ChosenKey | null = null;
  /** The call's end is in the metrics (settle.ts): recorded once, whichever settlement comes first. */
  measured = false;
  constructor(
    readonly req: RelayRequest,
    readonly requestId: string,
    readonly mode: RelayMode,
    readonly caller: RelayCaller,
    readonly body: ParsedBody,
    readonly pricing: Pricing,
    /** The log row's content line for this pricing. */
    readonly logContent: string,
    readonly options: OptionValues,
    readonly reservation: Reservation,
    readonly startedAt: number,
    /** A call in another protocol (Anthropic, Gemini, Responses): its answer is encoded back. */
    readonly inbound: InboundCall | null = null,
  ) {}
  /**
   * Prompt tokens counted locally; computed on first read: only when the upstream reports none, or
   * reports more than the bytes sent allow (promptBound).
   */
  /** The `x-qiao-dropped` header for an answer, when the request lost anything on the way. */
  droppedHeader(headers: Record<string, string>): Record<string, string> {
    if (this.dropped.length > 0) headers["x-qiao-dropped"] = this.dropped.join(",");
    return headers;
  }
  get promptTokens(): number {
    // Another protocol's call is counted as the canonical body it decodes to, as it always was.
    return (this.counted ??= this.inbound
      ? countJsonPromptTokens(this.mode, this.inbound.canonical().json, this.body.model)
      : countPrompt(this.mode, this.body));
  }
  /** The prompt bound's cheap part (usage-bounds.ts): the bytes sent, no counting. */
  get promptQuickBound(): number {
    return promptQuickBound(this.req.body.length);
  }
  /** The prompt bound, counting the prompt: read only when the vendor's count is over the quick bound. */
  get promptBound(): number {
    const json = this.inbound ? this.inbound.canonical().json : this.body.json;
    if (json && hasUnsizedParts(json)) return Number.POSITIVE_INFINITY;
    return promptBound(this.req.body.length, this.promptTokens);
  }
}

/**
 * Parts whose size the relay cannot know from the request: files and audio (a PDF by file id, a
 * video by URI: up to a million tokens), and hosted tools (web or file search add what they find
 * to the prompt). A prompt carrying them is not bounded by the local count.
 */
function hasUnsizedParts(json: Record<string, unknown>): boolean {
  if (json.web_search_options !== undefined) return true;
  if (Array.isArray(json.tools)) {
    for (const tool of json.tools) {
      const type = (tool as { type?: unknown } | null)?.type;
      if (type !== undefined && type !== "function" && type !== "custom") return true;
    }
  }
  if (!Array.isArray(json.messages)) return false;
  for (const message of json.messages) {
    const content = (message as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) continue;
    for (const part of content) {
      const type = (part as { type?: unknown } | null)?.type;
      if (type === "file" || type === "input_file" || type === "input_audio" || type === "audio" || type === "video") return true;
    }
  }
  return false;
}

/** Prompt tokens counted locally: the bill when the upstream reports no usage. */
function countPrompt(mode: RelayMode, body: ParsedBody): number {
  // A large body's count was planned where it was read: only the tokenizer's part is left.
  if (body.large) return countPromptPlan(body.large.prompt, body.model);
  if (!body.json) return 0; // multipart (transcriptions, translations): billed by the transcript
  return countJsonPromptTokens(mode, body.json, body.model);
}

// Getters, not values: the local prompt count runs only if the upstream's usage is missing or
// absurd. Classes, not literals with getters (see CallContext).
export class UsageContext {
  constructor(
    private readonly ctx: CallContext,
    readonly model: string,
    readonly responseFormat: string | undefined,
  ) {}
  get promptTokens(): number {
    return this.ctx.promptTokens;
  }
}

export class PromptFallback {
  constructor(private readonly ctx: CallContext) {}
  get prompt_tokens(): number {
    return this.ctx.promptTokens;
  }
}
