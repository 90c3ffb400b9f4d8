// What Cohere sends back, the fields the converters read: the v2 chat answer and its stream events,
// v1 rerank's and v2 embed's answers. `usage` stays unparsed: cohereUsage reads it for the stream
// too, by hand (stream events are not run through zod, see ../wire.ts).
import { z } from "zod";
import { anyObject, finite, maybe, type Unchecked } from "../wire";

const ToolCall = z
  .object({
    id: z.unknown().optional(),
    function: maybe(z.object({ name: z.unknown().optional(), arguments: z.unknown().optional() }).loose()),
  })
  .loose();

export const CohereChat = z
  .object({
    message: maybe(
      z
        .object({
          content: maybe(z.array(z.unknown())),
          // Items that are no object are kept as null: a list of only those still answers `tool_calls: []`.
          tool_calls: maybe(z.array(ToolCall.nullable().catch(null))),
        })
        .loose(),
    ),
    finish_reason: z.unknown().optional(),
    usage: z.unknown().optional(),
  })
  .loose();

export const CohereRerank = z.object({ id: z.unknown().optional(), results: maybe(z.array(z.unknown())), meta: maybe(anyObject) }).loose();

export const CohereEmbed = z
  .object({
    embeddings: maybe(z.object({ float: maybe(z.array(z.unknown())) }).loose()),
    message: maybe(z.string()),
    meta: maybe(z.object({ billed_units: maybe(z.object({ input_tokens: finite }).loose()) }).loose()),
  })
  .loose();

/**
 * A v2 stream event: `type`, and `delta` with the message piece or the end's reason and usage.
 * Not run per event (the converter checks what it reads by hand); it types the event and the
 * tests hold the recorded streams to it.
 */
export const CohereStreamEvent = z
  .object({
    type: z.string(),
    delta: maybe(
      z.object({ message: z.unknown().optional(), finish_reason: z.unknown().optional(), usage: z.unknown().optional() }).loose(),
    ),
  })
  .loose();
export type CohereEvent = Unchecked<z.output<typeof CohereStreamEvent>>;
