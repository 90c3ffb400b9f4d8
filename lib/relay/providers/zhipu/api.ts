// What Zhipu's v3 API answers, as far as the converter reads it: zod schemas, loose and forgiving
// as the hand checks before them were (a field of the wrong type reads as absent, a choice that
// is not an object as empty text), so a schema never refuses an answer the converter used to take.
import { z } from "zod";

const count = z.number().optional().catch(undefined);

/** v3's `usage` (OpenAI's names); a count that is not a number reads as absent. */
export const ZhipuV3Usage = z.object({ prompt_tokens: count, completion_tokens: count, total_tokens: count }).loose();

const Choice = z
  .object({ content: z.string().catch("") })
  .loose()
  .nullable()
  .catch(null);

/** A whole answer: `{code, msg, success, data: {task_id, choices, usage}}`; code 200 is success. */
export const ZhipuV3Answer = z
  .object({
    code: z.unknown().optional(),
    success: z.unknown().optional(),
    msg: z.string().optional().catch(undefined),
    data: z
      .object({
        task_id: z.string().optional().catch(undefined),
        choices: z.array(Choice).catch([]),
        usage: ZhipuV3Usage.optional().catch(undefined),
      })
      .loose()
      .catch({ choices: [] }),
  })
  .loose();
export type ZhipuV3Answer = z.infer<typeof ZhipuV3Answer>;
