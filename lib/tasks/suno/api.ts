// Suno's wire shapes, as the Suno-API project (github.com/Suno-API/Suno-API) and the proxies built
// for new-api speak them: the submit body a client sends (and Qiao sends on), the submit answer
// `{code: "success", message, data: <task id>}`, and the fetch answer `{code: "success", data:
// [task…]}` whose tasks carry the clips in `data`.
import { z } from "zod";
import { finite, listOf, maybe } from "@/lib/relay/providers/wire";

/**
 * The submit body. The fields Qiao reads are typed (a wrong type is the client's 400); the rest is
 * passed on as sent, so a proxy's newer fields (negative_tags, persona_id…) reach it.
 */
export const SunoSubmitBody = z
  .object({
    gpt_description_prompt: z.string().optional(),
    prompt: z.string().optional(),
    mv: z.string().optional(),
    title: z.string().optional(),
    tags: z.string().optional(),
    continue_at: z.number().optional(),
    continue_clip_id: z.string().optional(),
    /** The task a continuation extends (its clip is continue_clip_id). */
    task_id: z.string().optional(),
    make_instrumental: z.boolean().optional(),
  })
  .loose();
export type SunoSubmitBody = z.output<typeof SunoSubmitBody>;

/** `code` is "success" when the task was taken; anything else is the vendor's refusal. */
export const SunoAnswer = z
  .object({
    code: maybe(z.union([z.string(), z.number()])),
    message: maybe(z.string()),
    data: z.unknown().optional(),
  })
  .loose();

/** One task of a fetch answer. Times are unix seconds (Suno-API); `data` is the clip list (or the lyrics). */
export const SunoTaskItem = z
  .object({
    task_id: z.string(),
    action: maybe(z.string()),
    status: maybe(z.string()),
    fail_reason: maybe(z.string()),
    submit_time: finite,
    start_time: finite,
    finish_time: finite,
    progress: maybe(z.union([z.string(), z.number()])),
    data: z.unknown().optional(),
  })
  .loose();
export type SunoTaskItem = z.output<typeof SunoTaskItem>;

export const SunoFetchAnswer = SunoAnswer.extend({ data: listOf(SunoTaskItem) });

/** A client's `POST /suno/fetch`: the task ids (new-api takes any JSON scalars) and an optional action. */
export const SunoFetchBody = z
  .object({
    ids: z.array(z.union([z.string(), z.number()])).nullish(),
    action: z.string().optional(),
  })
  .loose();
