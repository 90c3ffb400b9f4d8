// The read routes: a task and a list of tasks from Qiao's database (the caller's own only), a
// task's image seed asked of the proxy that ran it, and the image proxy `/mj/image/{id}`.
import { CHANNEL_STATUS } from "@/lib/channels/fields";
import { FETCH_URL_MSG, fetchUserUrl, UserUrlError } from "@/lib/net/fetch-url";
import { isObj } from "@/lib/obj";
import { RelayError } from "@/lib/relay/errors";
import type { RelayRequest, RelayResponse } from "@/lib/relay/http";
import { currentRoutingTable, relayOptions, taskCaller } from "@/lib/tasks/submit";
import { callVendor, VendorUnreachable, vendorBase } from "@/lib/tasks/upstream";
import { mjJson, readJsonObject, upstreamFailure } from "@/lib/tasks/midjourney/answer";
import { ownTask, ownTasks, storedImageUrl, taskObject } from "@/lib/tasks/midjourney/rows";

/** Ids one list-by-condition may ask for. */
const MAX_IDS = 1000;
const IMAGE_SEED_TIMEOUT_MS = 30_000;

const notFound = (mjId: string) => new RelayError(404, `任务不存在：${mjId}`, { type: "invalid_request_error" });

/** `GET /mj/task/{id}/fetch`. */
export async function fetchTask(req: RelayRequest, requestId: string, mjId: string): Promise<RelayResponse> {
  const caller = await taskCaller(req);
  const row = await ownTask(caller.user.id, mjId);
  if (!row) throw notFound(mjId);
  return mjJson(200, taskObject(row, await relayOptions()), requestId);
}

/** `POST /mj/task/list-by-condition {ids}`. */
export async function listTasks(req: RelayRequest, requestId: string): Promise<RelayResponse> {
  const caller = await taskCaller(req);
  const body = readJsonObject(req);
  const raw = Array.isArray(body.ids) ? body.ids : [];
  const ids = [...new Set(raw.filter((id) => typeof id === "string" || typeof id === "number").map(String))];
  if (ids.length > MAX_IDS) throw new RelayError(400, `ids 最多 ${MAX_IDS} 个`, { type: "invalid_request_error" });
  const options = await relayOptions();
  const rows = await ownTasks(caller.user.id, ids);
  return mjJson(
    200,
    rows.map((row) => taskObject(row, options)),
    requestId,
  );
}

/** `GET /mj/task/{id}/image-seed`: asked of the proxy that ran the caller's task; its answer passed on. */
export async function imageSeed(req: RelayRequest, requestId: string, mjId: string, upstreamPath: string): Promise<RelayResponse> {
  const caller = await taskCaller(req);
  const row = await ownTask(caller.user.id, mjId);
  if (!row) throw notFound(mjId);
  const channel = (await currentRoutingTable()).byId.get(row.channelId)?.row;
  if (!channel) throw new RelayError(400, "该任务所属渠道已被删除");
  if (channel.status !== CHANNEL_STATUS.enabled) throw new RelayError(400, "该任务所属渠道已被禁用");
  try {
    const answer = await callVendor(channel, await relayOptions(), {
      method: "GET",
      url: `${vendorBase(channel)}${upstreamPath}`,
      headers: { "mj-api-secret": channel.key },
      timeoutMs: IMAGE_SEED_TIMEOUT_MS,
    });
    if (!isObj(answer.json)) return upstreamFailure(`上游返回了无法识别的应答（HTTP ${answer.status}）`, requestId);
    return mjJson(answer.status, answer.json, requestId);
  } catch (error) {
    if (error instanceof VendorUnreachable) return upstreamFailure(error.message, requestId);
    throw error;
  }
}

/**
 * `GET /mj/image/{id}`, without a key (as new-api; the task id is the secret): the task's image,
 * fetched from where the proxy said it is. That address came from a vendor, so it is fetched as a
 * user's URL is (lib/net/fetch-url.ts): through root's worker proxy, or from public addresses only.
 */
export async function serveImage(requestId: string, mjId: string): Promise<RelayResponse> {
  const url = await storedImageUrl(mjId);
  if (!url) throw new RelayError(404, url === null ? `任务不存在：${mjId}` : "该任务还没有图片", { type: "invalid_request_error" });
  let image: Awaited<ReturnType<typeof fetchUserUrl>>;
  try {
    image = await fetchUserUrl(url);
  } catch (error) {
    if (error instanceof UserUrlError) return upstreamFailure(`图片获取失败：${error.message}`, requestId);
    throw error;
  }
  if (image.status !== 200) return upstreamFailure(`图片获取失败（状态码 ${image.status}）`, requestId);
  // Served on this server's origin: nothing but an image (a page there could script the console).
  const type = image.contentType.split(";")[0]!.trim().toLowerCase() || "image/jpeg";
  if (!type.startsWith("image/") || type.includes("svg")) return upstreamFailure(`图片获取失败：${FETCH_URL_MSG.notImage}`, requestId);
  return {
    status: 200,
    headers: { "content-type": type, "x-oneapi-request-id": requestId },
    body: new Uint8Array(image.body),
  };
}
