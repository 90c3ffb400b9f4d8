// The Midjourney platform: channels of types 2 (Midjourney Proxy) and 5 (Midjourney Proxy Plus),
// rows in `midjourneys`, routes under `/mj/…` and `/{mode}/mj/…` (new-api's; the mode prefix,
// fast, relax, turbo…, goes on to the proxy in the path, except new-api's `/mj-{mode}/mj/…` form,
// which reaches the proxy as `/mj/…`). Errors in new-api's Midjourney shape (answer.ts).
import { CHANNEL_TYPES } from "@/lib/channels/catalog";
import { MJ_MODE } from "@/lib/relay/endpoints";
import { decodePathSegment } from "@/lib/relay/http";
import { RelayError } from "@/lib/relay/errors";
import type { TaskHandler, TaskPlatform } from "@/lib/tasks/types";
import { MJ_ACTION } from "@/lib/tasks/midjourney/actions";
import { midjourneyErrors } from "@/lib/tasks/midjourney/answer";
import { fetchTask, imageSeed, listTasks, serveImage } from "@/lib/tasks/midjourney/fetch";
import { pollMidjourney } from "@/lib/tasks/midjourney/poll";
import { type SubmitKind, submitHandler } from "@/lib/tasks/midjourney/submit";

/** `/mj/rest` or `/{mode}/mj/rest` (the modes of lib/relay/endpoints.ts). */
const MJ_PATH = new RegExp(`^(?:/(${MJ_MODE}))?/mj(/.*)$`);

/** POST paths that submit, under /mj. */
const SUBMITS: Readonly<Record<string, SubmitKind>> = {
  "/submit/imagine": { action: MJ_ACTION.imagine },
  "/submit/describe": { action: MJ_ACTION.describe },
  "/submit/blend": { action: MJ_ACTION.blend },
  "/submit/shorten": { action: MJ_ACTION.shorten },
  "/submit/upload-discord-images": { action: MJ_ACTION.upload },
  "/submit/change": { followUp: "change" },
  "/submit/simple-change": { followUp: "simple-change" },
  "/submit/action": { followUp: "action" },
  "/submit/modal": { followUp: "modal" },
  "/insight-face/swap": { swapFace: true },
};

const TASK_FETCH = /^\/task\/([^/]+)\/fetch$/;
const IMAGE_SEED = /^\/task\/([^/]+)\/image-seed$/;
const IMAGE = /^\/image\/([^/]+)$/;

function route(method: string, path: string): TaskHandler | null {
  const m = MJ_PATH.exec(path);
  if (!m) return null;
  const mode = m[1];
  const rest = m[2]!;
  const upstreamPath = mode && !mode.startsWith("mj-") ? path : `/mj${rest}`;
  if (method === "POST") {
    const kind = SUBMITS[rest];
    if (kind) return submitHandler(midjourney, kind, upstreamPath);
    if (rest === "/task/list-by-condition") return listTasks;
  } else if (method === "GET") {
    // Ids are decoded when the handler runs: a malformed one is then answered in this platform's shape.
    const fetched = TASK_FETCH.exec(rest)?.[1];
    if (fetched) return (req, requestId) => fetchTask(req, requestId, decodePathSegment(fetched));
    const seeded = IMAGE_SEED.exec(rest)?.[1];
    if (seeded) return (req, requestId) => imageSeed(req, requestId, decodePathSegment(seeded), upstreamPath);
    const image = IMAGE.exec(rest)?.[1];
    if (image) return (_req, requestId) => serveImage(requestId, decodePathSegment(image));
  }
  // Any other path under /mj is Midjourney's too: its 404 in Midjourney's shape.
  return async (req) => {
    throw new RelayError(404, `Invalid URL (${req.method} ${req.path})`, { type: "invalid_request_error" });
  };
}

export const midjourney: TaskPlatform = {
  name: "midjourney",
  table: "midjourneys",
  channelTypes: [CHANNEL_TYPES.Midjourney, CHANNEL_TYPES.MidjourneyPlus],
  errorShape: midjourneyErrors,
  route,
  poll: pollMidjourney,
};
