// The Suno platform (channel type 36): Suno-API's routes under /suno, answered in new-api's task
// envelope. Submits are charged and refunded by the task framework; fetches read our rows; the
// poller asks each channel about its open tasks (poll.ts).
import { ChannelType } from "@/lib/relay/types";
import { fetchSunoTask, fetchSunoTasks } from "@/lib/tasks/suno/fetch";
import { pollSuno } from "@/lib/tasks/suno/poll";
import { submitSuno } from "@/lib/tasks/suno/submit";
import { sunoErrorShape } from "@/lib/tasks/suno/wire";
import type { TaskPlatform } from "@/lib/tasks/types";

const SUBMIT = /^\/suno\/submit\/([^/]+)$/;
const FETCH_ONE = /^\/suno\/fetch\/([^/]+)$/;

export const suno: TaskPlatform = {
  name: "suno",
  table: "tasks",
  channelTypes: [ChannelType.Suno],
  errorShape: sunoErrorShape,
  route(method, path) {
    if (method === "POST") {
      const submit = SUBMIT.exec(path);
      if (submit) return (req, requestId) => submitSuno(suno, req, requestId, submit[1]!);
      if (path === "/suno/fetch") return (req, requestId) => fetchSunoTasks(suno, req, requestId);
    }
    if (method === "GET") {
      const one = FETCH_ONE.exec(path);
      if (one) return (req, requestId) => fetchSunoTask(suno, req, requestId, one[1]!);
    }
    return null;
  },
  poll: pollSuno,
};
