import { route } from "@/lib/api/route";
import { asyncTaskQuerySchema, listAsyncTasks } from "@/lib/tasks/query";

/** The caller's async tasks, filtered by task id and submit time (channel_id is ignored). */
export const GET = route({
  auth: "user",
  query: asyncTaskQuerySchema,
  handler: ({ caller, query }) => listAsyncTasks({ ...query, userId: caller.id }),
});
