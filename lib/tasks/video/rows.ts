// A caller's videos as the `tasks` table holds them (platform "openai-video", `task_id` = the
// vendor's id, which is also the id the client knows), and the video object a row reads as: the
// vendor's last answer (stored without addresses) under what the row knows for certain (status,
// progress, the caller's model and parameters, the failure).
import { getDirectDb, type Row } from "@/lib/db/direct";
import { big, int, str } from "@/lib/db/num";
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

// Read on the direct connection: these run in a relay worker, which never loads Prisma.
const COLUMNS = "id, task_id, channel_id, status, progress, fail_reason, created_at, finish_time, properties, data";

const rowOf = (r: Row): VideoRow => ({
  id: int(r.id),
  task_id: str(r.task_id),
  channel_id: int(r.channel_id),
  status: str(r.status),
  progress: str(r.progress),
  fail_reason: str(r.fail_reason),
  created_at: int(r.created_at),
  finish_time: big(r.finish_time),
  properties: str(r.properties),
  data: str(r.data),
});

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
  const db = await getDirectDb();
  const [row] = await db.query(`SELECT ${COLUMNS} FROM tasks WHERE platform = ? AND user_id = ? AND task_id = ? ORDER BY id LIMIT 1`, [
    VIDEO_PLATFORM,
    userId,
    videoId,
  ]);
  return row ? rowOf(row) : null;
}

export type VideoPage = { rows: VideoRow[]; hasMore: boolean };

/**
 * The caller's videos, newest first (`order` "asc": oldest first), `limit` of them after the video
 * `after` (null: from the start). Submits the vendor refused have no id and are not listed.
 */
export async function listVideos(userId: number, o: { after: VideoRow | null; limit: number; order: "asc" | "desc" }): Promise<VideoPage> {
  const db = await getDirectDb();
  const after = o.after ? (o.order === "asc" ? " AND id > ?" : " AND id < ?") : "";
  const limit = Math.max(1, Math.floor(o.limit)) + 1;
  const rows = await db.query(
    `SELECT ${COLUMNS} FROM tasks WHERE platform = ? AND user_id = ? AND task_id <> ''${after} ORDER BY id ${o.order === "asc" ? "ASC" : "DESC"} LIMIT ${limit}`,
    o.after ? [VIDEO_PLATFORM, userId, o.after.id] : [VIDEO_PLATFORM, userId],
  );
  return { rows: rows.slice(0, limit - 1).map(rowOf), hasMore: rows.length >= limit };
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
