// What Gemini sends back, the fields the converters read: `GenerateContentResponse` (a whole answer,
// and each `alt=sse` event) and `batchEmbedContents`' answer. A candidate's `content` stays
// unparsed: its parts are read by the one reader the stream shares (convert-response's readParts),
// which checks them by hand, because zod costs ~8× the converter's own walk per stream event.
import { z } from "zod";
import { finite, listOf, maybe, type Unchecked } from "../wire";

export const Candidate = z
  .object({
    content: z.unknown().optional(),
    finishReason: z.unknown().optional(),
    index: maybe(z.number()),
  })
  .loose();

export const UsageMetadata = z
  .object({
    promptTokenCount: finite,
    toolUsePromptTokenCount: finite,
    candidatesTokenCount: finite,
    thoughtsTokenCount: finite,
    cachedContentTokenCount: finite,
  })
  .loose();

export const GenerateContentResponse = z
  .object({
    candidates: listOf(Candidate),
    promptFeedback: maybe(z.object({ blockReason: z.string() }).loose()),
    usageMetadata: maybe(UsageMetadata),
    modelVersion: maybe(z.string()),
  })
  .loose();

export const BatchEmbedResponse = z
  .object({
    embeddings: listOf(
      z
        .object({ values: z.array(z.unknown()).catch([]) })
        .loose()
        .catch({ values: [] }),
    ),
  })
  .loose();

export type GenerateContentResponse = z.output<typeof GenerateContentResponse>;
export type UsageMetadata = z.output<typeof UsageMetadata>;
/** One `alt=sse` event, its fields still to be checked (see Unchecked). */
export type GeminiEvent = Unchecked<GenerateContentResponse>;
