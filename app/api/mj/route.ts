import { route } from "@/lib/api/route";
import { drawingQuerySchema, listDrawingTasks } from "@/lib/tasks/query";

/** Every user's drawing tasks (admin), filtered by channel, task id and submit time. */
export const GET = route({ auth: "admin", query: drawingQuerySchema, handler: ({ query }) => listDrawingTasks(query) });
