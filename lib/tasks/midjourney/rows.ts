// The midjourneys rows the routes read, and the task object a client gets for one: from Qiao's
// database, never from the proxy (new-api's fetch and list-by-condition do the same), so a client
// sees only its own tasks and a proxy's address never reaches it.
import { getDirectDb, type Row } from "@/lib/db/direct";
import { int, str } from "@/lib/db/num";
import type { OptionValues } from "@/lib/options";
import { isObj } from "@/lib/obj";
import { TASK_STATUS } from "@/lib/tasks/types";

export type MjRow = {
  id: number;
  mjId: string;
  userId: number;
  channelId: number;
  action: string;
  prompt: string;
  promptEn: string;
  description: string;
  state: string;
  submitTime: number;
  startTime: number;
  finishTime: number;
  imageUrl: string;
  status: string;
  progress: string;
  failReason: string;
  buttons: string;
  properties: string;
};

const COLUMNS =
  "id, mj_id, user_id, channel_id, action, prompt, prompt_en, description, state, submit_time, start_time, finish_time, image_url, status, progress, fail_reason, buttons, properties";

const rowOf = (r: Row): MjRow => ({
  id: int(r.id),
  mjId: str(r.mj_id),
  userId: int(r.user_id),
  channelId: int(r.channel_id),
  action: str(r.action),
  prompt: str(r.prompt),
  promptEn: str(r.prompt_en),
  description: str(r.description),
  state: str(r.state),
  submitTime: int(r.submit_time),
  startTime: int(r.start_time),
  finishTime: int(r.finish_time),
  imageUrl: str(r.image_url),
  status: str(r.status),
  progress: str(r.progress),
  failReason: str(r.fail_reason),
  buttons: str(r.buttons),
  properties: str(r.properties),
});

/** The caller's task with this proxy id (the newest, should two rows share it), or null. */
export async function ownTask(userId: number, mjId: string): Promise<MjRow | null> {
  const db = await getDirectDb();
  const [row] = await db.query(`SELECT ${COLUMNS} FROM midjourneys WHERE mj_id = ? AND user_id = ? ORDER BY id DESC LIMIT 1`, [
    mjId,
    userId,
  ]);
  return row ? rowOf(row) : null;
}

/** The caller's tasks with these proxy ids, oldest first. */
export async function ownTasks(userId: number, mjIds: readonly string[]): Promise<MjRow[]> {
  if (!mjIds.length) return [];
  const db = await getDirectDb();
  const rows = await db.query(
    `SELECT ${COLUMNS} FROM midjourneys WHERE user_id = ? AND mj_id IN (${mjIds.map(() => "?").join(", ")}) ORDER BY id`,
    [userId, ...mjIds],
  );
  return rows.map(rowOf);
}

/** The stored image address of the task with this proxy id, whoever's it is ("" when it has none), or null. */
export async function storedImageUrl(mjId: string): Promise<string | null> {
  const db = await getDirectDb();
  const [row] = await db.query("SELECT image_url FROM midjourneys WHERE mj_id = ? ORDER BY id DESC LIMIT 1", [mjId]);
  return row ? str(row.image_url) : null;
}

const parsed = (text: string): unknown => {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

/** This server's address for links (ServerAddress, without a trailing slash). */
export const serverAddress = (o: Pick<OptionValues, "ServerAddress">) => o.ServerAddress.replace(/\/+$/, "");

/**
 * The image address a client gets: this server's `/mj/image/{id}` while MjForwardUrlEnabled (the
 * proxy's own address stays private), with `?rand=` while the task runs so that a client's cache
 * never keeps a preview; else the stored one.
 */
export function clientImageUrl(row: Pick<MjRow, "mjId" | "imageUrl" | "status">, o: OptionValues): string {
  if (!row.imageUrl || !o.MjForwardUrlEnabled) return row.imageUrl;
  const url = `${serverAddress(o)}/mj/image/${encodeURIComponent(row.mjId)}`;
  return row.status === TASK_STATUS.success ? url : `${url}?rand=${Date.now()}`;
}

/** A row as midjourney-proxy's task object. */
export function taskObject(row: MjRow, o: OptionValues) {
  const buttons = parsed(row.buttons);
  const properties = parsed(row.properties);
  return {
    id: row.mjId,
    action: row.action,
    prompt: row.prompt,
    promptEn: row.promptEn,
    description: row.description,
    state: row.state,
    submitTime: row.submitTime,
    startTime: row.startTime,
    finishTime: row.finishTime,
    imageUrl: clientImageUrl(row, o),
    status: row.status,
    progress: row.progress,
    failReason: row.failReason,
    buttons: Array.isArray(buttons) ? buttons : null,
    properties: isObj(properties) ? properties : null,
  };
}
