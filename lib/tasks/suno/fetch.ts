// `POST /suno/fetch {ids, action?}` and `GET /suno/fetch/{id}`: the caller's own Suno tasks, read
// from the database (the poller keeps them current), never from the vendor. Each task in new-api's
// task DTO; times in unix seconds as new-api and Suno-API give them (the rows keep milliseconds).
import { getDirectDb, type Row } from "@/lib/db/direct";
import { big, int, num, str } from "@/lib/db/num";
import { decodePathSegment, type RelayRequest, type RelayResponse } from "@/lib/relay/http";
import { taskCaller } from "@/lib/tasks/submit";
import { SunoFetchBody } from "@/lib/tasks/suno/api";
import { invalidRequest, parseJsonBody, sunoJson } from "@/lib/tasks/suno/wire";
import type { TaskPlatform } from "@/lib/tasks/types";

/** Ids one fetch may name: an IN list this long is still one cheap indexed query. */
const MAX_IDS = 1000;

const COLUMNS =
  "id, created_at, updated_at, task_id, platform, user_id, quota, action, status, fail_reason, submit_time, start_time, finish_time, progress, properties, data";

const seconds = (ms: unknown) => Math.floor(int(ms) / 1000);

/** Stored JSON text as JSON (null when empty or unreadable). */
function stored(text: unknown): unknown {
  const s = str(text);
  if (!s) return null;
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}

function taskDto(row: Row) {
  return {
    id: int(row.id),
    created_at: int(row.created_at),
    updated_at: int(row.updated_at),
    task_id: str(row.task_id),
    platform: str(row.platform),
    user_id: int(row.user_id),
    quota: num(big(row.quota)),
    action: str(row.action),
    status: str(row.status),
    fail_reason: str(row.fail_reason),
    submit_time: seconds(row.submit_time),
    start_time: seconds(row.start_time),
    finish_time: seconds(row.finish_time),
    progress: str(row.progress),
    properties: stored(row.properties),
    data: stored(row.data),
  };
}

export async function fetchSunoTasks(platform: TaskPlatform, req: RelayRequest, requestId: string): Promise<RelayResponse> {
  const caller = await taskCaller(req);
  const parsed = SunoFetchBody.safeParse(parseJsonBody(req));
  if (!parsed.success) throw invalidRequest("ids 应为任务 ID 的数组");
  const ids = [...new Set((parsed.data.ids ?? []).map(String))];
  if (ids.length > MAX_IDS) throw invalidRequest(`一次最多查询 ${MAX_IDS} 个任务`);
  if (!ids.length) return sunoJson(200, { code: "success", message: "", data: [] }, requestId);
  const action = parsed.data.action?.toUpperCase();
  const db = await getDirectDb();
  const rows = await db.query(
    `SELECT ${COLUMNS} FROM tasks WHERE user_id = ? AND platform = ? AND task_id IN (${ids.map(() => "?").join(", ")})${action ? " AND action = ?" : ""} ORDER BY id`,
    [caller.user.id, platform.name, ...ids, ...(action ? [action] : [])],
  );
  return sunoJson(200, { code: "success", message: "", data: rows.map(taskDto) }, requestId);
}

export async function fetchSunoTask(
  platform: TaskPlatform,
  req: RelayRequest,
  requestId: string,
  idInPath: string,
): Promise<RelayResponse> {
  const caller = await taskCaller(req);
  const id = decodePathSegment(idInPath);
  const db = await getDirectDb();
  const [row] = await db.query(`SELECT ${COLUMNS} FROM tasks WHERE user_id = ? AND platform = ? AND task_id = ? ORDER BY id DESC`, [
    caller.user.id,
    platform.name,
    id,
  ]);
  if (!row) throw invalidRequest(`任务 ${id} 不存在`, "task_not_exist");
  return sunoJson(200, { code: "success", message: "", data: taskDto(row) }, requestId);
}
