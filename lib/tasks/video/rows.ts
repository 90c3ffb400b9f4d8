// A caller's videos as the `tasks` table holds them (platform "openai-video", `task_id` = the
// vendor's id, which is also the id the client knows), and the video object a row reads as: the
// vendor's last answer (stored without addresses) under what the row knows for certain (status,
// progress, the caller's model and parameters, the failure).
import { getDb } from "@/lib/db";
import { isObj } from "@/lib/obj";
import { videoStatusOf } from "@/lib/tasks/video/api";

export const VIDEO_PLATFORM = "openai-video";

/** The row's `properties`: what the client asked for. */
export type VideoProperties = {
  model: string;
  seconds: number;
  /** "" when the client left it to the vendor. */
  size: string;
  prompt: string;
  /** A remix: the video it remixes. */
  remix_of?: string;
};

const SELECT = {
  id: true,
  task_id: true,
  channel_id: true,
  status: true,
  progress: true,
  fail_reason: true,
  created_at: true,
  finish_time: true,
  properties: true,
  data: true,
} as const;

export type VideoRow = {
  id: number;
  task_id: string;
  channel_id: number;
  status: string;
  progress: string;
  fail_reason: string;
  created_at: number;
  finish_time: bigint;
  properties: string;
  data: string;
};

/** The caller's video `videoId`, or null (another user's is as absent as one that never was). */
export async function findVideo(userId: number, videoId: string): Promise<VideoRow | null> {
  if (videoId === "") return null;
  const db = await getDb();
  return db.task.findFirst({ where: { platform: VIDEO_PLATFORM, user_id: userId, task_id: videoId }, select: SELECT });
}

export type VideoPage = { rows: VideoRow[]; hasMore: boolean };

/**
 * The caller's videos, newest first (`order` "asc": oldest first), `limit` of them after the video
 * `after` (null: from the start). Submits the vendor refused have no id and are not listed.
 */
export async function listVideos(userId: number, o: { after: VideoRow | null; limit: number; order: "asc" | "desc" }): Promise<VideoPage> {
  const db = await getDb();
  const rows = await db.task.findMany({
    where: {
      platform: VIDEO_PLATFORM,
      user_id: userId,
      task_id: { not: "" },
      ...(o.after ? { id: o.order === "asc" ? { gt: o.after.id } : { lt: o.after.id } } : {}),
    },
    orderBy: { id: o.order },
    take: o.limit + 1,
    select: SELECT,
  });
  return { rows: rows.slice(0, o.limit), hasMore: rows.length > o.limit };
}

function objectOf(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return isObj(v) ? v : {};
  } catch {
    return {};
  }
}

const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
const seconds = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

function percent(progress: string): number {
  const n = Number.parseFloat(progress);
  return Number.isFinite(n) ? Math.min(100, Math.max(0, Math.round(n))) : 0;
}

/** The video object (OpenAI's shape) a row answers with. */
export function videoObject(row: VideoRow): Record<string, unknown> {
  const vendor = objectOf(row.data);
  const asked = objectOf(row.properties);
  const status = videoStatusOf(row.status);
  const vendorError = isObj(vendor.error) ? vendor.error : {};
  const finishedAt = Number(row.finish_time) > 0 ? Math.floor(Number(row.finish_time) / 1000) : null;
  return {
    ...vendor,
    id: row.task_id,
    object: "video",
    model: text(asked.model) ?? text(vendor.model),
    status,
    progress: status === "completed" ? 100 : percent(row.progress),
    created_at: row.created_at,
    completed_at: status === "completed" ? (seconds(vendor.completed_at) ?? finishedAt) : null,
    expires_at: seconds(vendor.expires_at),
    prompt: text(asked.prompt) ?? text(vendor.prompt),
    seconds: String(asked.seconds ?? vendor.seconds ?? ""),
    size: text(asked.size) ?? text(vendor.size),
    remixed_from_video_id: text(asked.remix_of) ?? text(vendor.remixed_from_video_id),
    error: status === "failed" ? { code: text(vendorError.code) ?? "video_generation_failed", message: row.fail_reason } : null,
  };
}
