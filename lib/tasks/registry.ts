// The task platforms, like the relay's provider registry: adding one is a folder under lib/tasks
// and one line here. The relay (lib/relay/call/pipeline.ts) asks matchTaskRoute for every path it
// does not serve itself; the poller (lib/tasks/poller.ts) polls every platform listed.
import type { ErrorShape } from "@/lib/relay/http";
import { suno } from "@/lib/tasks/suno";
import { midjourney } from "@/lib/tasks/midjourney";
import type { TaskHandler, TaskPlatform } from "@/lib/tasks/types";
import { video } from "@/lib/tasks/video";

export const TASK_PLATFORMS: readonly TaskPlatform[] = [midjourney, suno, video];

/** The platform and handler for a relay path, or null. `path` has no trailing slash. */
export function matchTaskRoute(method: string, path: string): { platform: TaskPlatform; handler: TaskHandler } | null {
  for (const platform of TASK_PLATFORMS) {
    const handler = platform.route(method, path);
    if (handler) return { platform, handler };
  }
  return null;
}

/** The error shape of the platform whose path this is (for refusals before the body is read). */
export function taskErrorShape(method: string, path: string): ErrorShape | undefined {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return matchTaskRoute(method, trimmed)?.platform.errorShape;
}

/** The platforms whose tasks channels of `type` run. */
export function platformsOfChannelType(type: number): TaskPlatform[] {
  return TASK_PLATFORMS.filter((p) => p.channelTypes.includes(type));
}
