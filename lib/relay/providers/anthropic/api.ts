// What Anthropic's Messages API sends, as far as the converters read it: zod schemas, loose (the
// fields not listed pass untouched) and forgiving where the hand checks before them were (a field
// of the wrong type reads as absent, a content block of an unknown shape is skipped), so a schema
// never refuses an answer the converter used to take.
import { z } from "zod";

const TextBlock = z.object({ type: z.literal("text"), text: z.string() }).loose();
const ThinkingBlock = z.object({ type: z.literal("thinking"), thinking: z.string() }).loose();
const ToolUseBlock = z
  .object({ type: z.literal("tool_use"), id: z.unknown().optional(), name: z.unknown().optional(), input: z.unknown().optional() })
  .loose();

/** A content block the converter reads; any other (compaction, redacted thinking, a new type) is null. */
const ContentBlock = z.union([TextBlock, ThinkingBlock, ToolUseBlock]).nullable().catch(null);

/**
 * A whole answer (`type: "message"`). `content` must be a list: a body without one is an error
 * body (`{"type":"error","error":{…}}`) or not Anthropic's at all. `usage` is read by usage.ts,
 * which takes each count only when it is a number.
 */
export const AnthropicMessage = z
  .object({
    type: z.unknown().optional(),
    id: z.string().catch(""),
    model: z.string().optional().catch(undefined),
    content: z.array(ContentBlock),
    stop_reason: z.unknown().optional(),
    usage: z.unknown().optional(),
  })
  .loose();
export type AnthropicMessage = z.infer<typeof AnthropicMessage>;

/**
 * The stream's event types the converter reads. Events are typed by their `type` alone (a zod
 * parse per event would cost more than the conversion): each case reads its fields with the same
 * checks as before.
 */
export type AnthropicStreamEventType =
  | "message_start"
  | "content_block_start"
  | "content_block_delta"
  | "content_block_stop"
  | "message_delta"
  | "message_stop"
  | "ping"
  | "error";

/** One stream event: a JSON object with its `type` (which may be one this converter does not know). */
export type AnthropicStreamEvent = Record<string, unknown> & { type: AnthropicStreamEventType | (string & {}) };

/** True for a stream event, narrowed for the converter's switch. */
export const isStreamEvent = (v: unknown): v is AnthropicStreamEvent =>
  typeof v === "object" && v !== null && !Array.isArray(v) && typeof (v as { type?: unknown }).type === "string";
