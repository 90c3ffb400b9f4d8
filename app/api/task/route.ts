import { route } from "@/lib/api/route";
import { asyncTaskQuerySchema, listAsyncTasks } from "@/lib/tasks/query";

/** Every user's async tasks (admin), filtered by channel, task id and submit time. */
export const GET = route({ auth: "admin", query: asyncTaskQuerySchema, handler: ({ query }) => listAsyncTasks(query) });
