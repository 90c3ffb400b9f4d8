// What OpenAI's Responses API answers, as far as the relay reads it (responsesReader in
// openai-responses.ts): a zod schema, loose and forgiving as the hand checks before it were (an
// output item or part of another shape is skipped, a field of the wrong type reads as absent).
import { z } from "zod";

const Part = z.object({ text: z.string() }).loose().nullable().catch(null);

const OutputItem = z
  .union([
    z.object({ type: z.literal("message"), content: z.array(Part) }).loose(),
    z
      .object({
        type: z.literal("function_call"),
        call_id: z.unknown().optional(),
        name: z.unknown().optional(),
        arguments: z.unknown().optional(),
      })
      .loose(),
  ])
  .nullable()
  .catch(null);

/** A whole Response object (what `POST /v1/responses` answers, and `response.completed` carries). */
export const ResponseObject = z
  .object({
    id: z.unknown().optional(),
    created_at: z.unknown().optional(),
    model: z.unknown().optional(),
    status: z.unknown().optional(),
    incomplete_details: z.object({ reason: z.unknown().optional() }).loose().optional().catch(undefined),
    output: z.array(OutputItem).catch([]),
    usage: z.unknown().optional(),
  })
  .loose();
export type ResponseObject = z.infer<typeof ResponseObject>;
