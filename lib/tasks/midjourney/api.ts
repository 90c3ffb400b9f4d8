// What a midjourney-proxy (novicezk's, or midjourney-proxy-plus) sends back, the fields Qiao reads:
// a submit's answer `{code, description, result, properties}` and the task object of
// /mj/task/list-by-condition. Fields of another type read as absent, as a proxy's surprise should
// never fail a whole answer.
import { z } from "zod";
import { anyObject, finite, listOf, maybe } from "@/lib/relay/providers/wire";

/** A task id: the proxies send a string; some send the number. */
const taskId = z.union([z.string(), z.number().transform(String)]);

/**
 * A submit's answer. `code`: 1 submitted, 21 the task exists (properties say its status and
 * image), 22 queued, 23 queue full, 24 prompt refused, 3 no account instance, others failures.
 * `result`: the task id; an upload's is the list of uploaded image URLs.
 */
export const MjSubmitAnswer = z
  .object({
    code: z.number(),
    description: maybe(z.string()),
    result: maybe(z.union([taskId, z.array(z.string())])),
    properties: maybe(anyObject),
  })
  .loose();
export type MjSubmitAnswer = z.output<typeof MjSubmitAnswer>;

/** The task object (only the fields a poll stores). */
export const MjTask = z
  .object({
    id: taskId,
    status: maybe(z.string()),
    progress: maybe(z.string()),
    imageUrl: maybe(z.string()),
    promptEn: maybe(z.string()),
    description: maybe(z.string()),
    state: maybe(z.string()),
    failReason: maybe(z.string()),
    startTime: finite,
    finishTime: finite,
    buttons: maybe(z.array(z.unknown())),
    properties: maybe(anyObject),
  })
  .loose();
export type MjTask = z.output<typeof MjTask>;

/** /mj/task/list-by-condition's answer: a list of task objects (items that do not parse are dropped). */
export const MjTaskList = listOf(MjTask);
