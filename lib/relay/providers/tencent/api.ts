// What Hunyuan (API 3.0) sends back, the fields the converters read: `{Response: {Choices, Usage,
// Id, Error?}}` for a whole answer, and the stream's events `{Choices: [{Delta, FinishReason}],
// Usage, Id}`. The error fields and `Usage` are read by hand by readers the stream shares.
import { z } from "zod";
import { listOf, maybe, type Unchecked } from "../wire";

const ToolCall = z
  .object({ Id: maybe(z.string()), Function: maybe(z.object({ Name: maybe(z.string()), Arguments: maybe(z.string()) }).loose()) })
  .loose();

const Choice = z
  .object({
    Message: maybe(z.object({ Content: maybe(z.string()), ReasoningContent: maybe(z.string()), ToolCalls: listOf(ToolCall) }).loose()),
    FinishReason: maybe(z.string()),
  })
  .loose();

export const HunyuanAnswer = z
  .object({
    Response: z
      .object({
        Error: z.unknown().optional(),
        ErrorMsg: z.unknown().optional(),
        Id: maybe(z.string()),
        Usage: z.unknown().optional(),
        // Only the first choice is read; one that is no object reads as an empty one.
        Choices: z.array(Choice.nullable().catch(null)).catch([]),
      })
      .loose(),
  })
  .loose();

/** A stream event. Not run per event (the converter checks what it reads by hand, see ../wire.ts). */
export const HunyuanStreamEvent = z
  .object({
    Response: z.unknown().optional(),
    Choices: z.array(
      z
        .object({
          Delta: z.object({ Content: maybe(z.string()), ReasoningContent: maybe(z.string()), ToolCalls: z.unknown().optional() }).loose(),
          FinishReason: maybe(z.string()),
        })
        .loose(),
    ),
    Usage: z.unknown().optional(),
  })
  .loose();
export type HunyuanEvent = Unchecked<z.output<typeof HunyuanStreamEvent>>;
