// What PaLM's generateMessage answers, as far as the converter reads it: a zod schema, loose and
// forgiving as the hand checks before it were (a candidate that is not an object is skipped, a
// content that is not a string reads as "", a body that is not an object has no candidates).
import { z } from "zod";

const Candidate = z.object({ content: z.string().catch("") }).loose();

/** A `GenerateMessageResponse` (its error shape is Gemini's, read by gemini's errorOf first). */
export const GenerateMessageResponse = z
  .object({
    candidates: z.array(Candidate.nullable().catch(null)).catch([]),
    filters: z.array(z.unknown()).catch([]),
  })
  .loose();
export type GenerateMessageResponse = z.infer<typeof GenerateMessageResponse>;

const EMPTY: GenerateMessageResponse = { candidates: [], filters: [] };

/** The answer read once; a body that is not an object reads as one without candidates. */
export function readGenerateMessage(upstream: unknown): GenerateMessageResponse {
  const parsed = GenerateMessageResponse.safeParse(upstream);
  return parsed.success ? parsed.data : EMPTY;
}
