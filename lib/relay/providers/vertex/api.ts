// What Vertex AI's embeddings `predict` answers, as far as the converter reads it: a zod schema,
// loose and forgiving as the hand checks before it were (a prediction of another shape is an
// empty vector, a count that is not a number reads as 0). The vectors themselves are not copied
// through the schema: `values` is taken as it came when it is a list.
import { z } from "zod";

const Embeddings = z
  .object({
    values: z.unknown().optional(),
    statistics: z
      .object({ token_count: z.number().optional().catch(undefined) })
      .loose()
      .optional()
      .catch(undefined),
  })
  .loose();

const Prediction = z
  .object({ embeddings: Embeddings.catch({}) })
  .loose()
  .nullable()
  .catch(null);

/** `{predictions: [{embeddings: {values, statistics: {token_count}}}]}` (Claude and Gemini answers are read by their own converters). */
export const VertexPredictResponse = z.object({ predictions: z.array(Prediction).catch([]) }).loose();
export type VertexPredictResponse = z.infer<typeof VertexPredictResponse>;

/** The answer read once; a body that is not an object reads as one without predictions. */
export function readPredict(upstream: unknown): VertexPredictResponse {
  const parsed = VertexPredictResponse.safeParse(upstream);
  return parsed.success ? parsed.data : { predictions: [] };
}
