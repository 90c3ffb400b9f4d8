import { route } from "@/lib/api/route";
import { drawingQuerySchema, listDrawingTasks } from "@/lib/tasks/query";

/** The caller's drawing tasks, filtered by task id and submit time (channel_id is ignored). */
export const GET = route({
  auth: "user",
  query: drawingQuerySchema,
  handler: ({ caller, query }) => listDrawingTasks({ ...query, userId: caller.id }),
});
