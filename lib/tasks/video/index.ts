// OpenAI's video API (Sora) on OpenAI and Azure OpenAI channels: `POST /v1/videos` (JSON or
// multipart), `GET /v1/videos/{id}`, `GET /v1/videos/{id}/content`, `POST /v1/videos/{id}/remix`
// and the caller's list, `GET /v1/videos`. A video is billed per second (ModelPrice of its model ×
// seconds × group ratio) when the vendor accepts it, and refunded once if it fails. Deleting a
// video is not offered (the pipeline answers 404): Qiao keeps the row as the bill's record.
import type { RoutingChannel } from "@/lib/channels/routing";
import { CHANNEL_TYPES } from "@/lib/channels/catalog";
import type { OptionValues } from "@/lib/options";
import { decodePathSegment, type RelayRequest, type RelayResponse } from "@/lib/relay/http";
import type { OpenTask, TaskHandler, TaskPlatform, TaskProgress } from "@/lib/tasks/types";
import { createVideo, listOwnVideos, remixVideo, retrieveVideo, videoContent } from "@/lib/tasks/video/handlers";
import { VIDEO_PLATFORM } from "@/lib/tasks/video/rows";
import { fetchVideo, progressOf } from "@/lib/tasks/video/vendor";
import { componentLogger } from "@/lib/log";
import { hideSecrets } from "@/lib/net/mask";

const log = componentLogger("tasks");

const PREFIX = "/v1/videos";
/** Videos asked about at once per channel in a poll round (one request per video). */
const POLL_PARALLEL = 4;

/** `GET …/videos/{id}` for each task, a few at a time; a task whose answer is not read stays as it is. */
async function poll(channel: RoutingChannel, tasks: readonly OpenTask[], options: OptionValues): Promise<TaskProgress[]> {
  const found: TaskProgress[] = [];
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const task = tasks[next++]!;
      try {
        const answer = await fetchVideo(channel, options, task.vendorId);
        if ("error" in answer) {
          log.warn(
            {
              platform: "openai-video",
              vendorTaskId: task.vendorId,
              channelId: channel.id,
              status: answer.error.status,
              reason: hideSecrets(answer.error.message),
            },
            "polling a task failed",
          );
          continue;
        }
        const progress = progressOf(task, answer.video, channel.key);
        if (progress) found.push(progress);
      } catch (error) {
        log.warn({ err: error, platform: "openai-video", vendorTaskId: task.vendorId, channelId: channel.id }, "polling a task failed");
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(POLL_PARALLEL, tasks.length) }, worker));
  return found;
}

type VideoIdHandler = (platform: TaskPlatform, req: RelayRequest, requestId: string, videoId: string) => Promise<RelayResponse>;

/** A handler for the video `{id}` of the path (decoded when the request is answered). */
const withId =
  (handle: VideoIdHandler, segment: string): TaskHandler =>
  (req, requestId) =>
    handle(video, req, requestId, decodePathSegment(segment));

export const video: TaskPlatform = {
  name: VIDEO_PLATFORM,
  table: "tasks",
  channelTypes: [CHANNEL_TYPES.OpenAI, CHANNEL_TYPES.Azure],
  // Errors in OpenAI's shape: the relay's own (errorShape left unset), which also keeps `param`.
  route(method, path) {
    if (!path.startsWith(PREFIX)) return null;
    if (path === PREFIX) {
      if (method === "POST") return (req, requestId) => createVideo(video, req, requestId);
      return method === "GET" ? listOwnVideos : null;
    }
    if (path[PREFIX.length] !== "/") return null;
    const [id, action, ...rest] = path.slice(PREFIX.length + 1).split("/");
    if (rest.length || id === undefined) return null;
    if (action === undefined) return method === "GET" ? withId(retrieveVideo, id) : null;
    if (action === "content") return method === "GET" ? withId(videoContent, id) : null;
    if (action === "remix") return method === "POST" ? withId(remixVideo, id) : null;
    return null;
  },
  poll,
};
