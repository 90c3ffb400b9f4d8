// The five video routes: create and remix (charged, sent, settled by lib/tasks/submit), the
// caller's video (asked of the vendor first while it runs), its bytes (streamed through Qiao, the
// vendor's address never shown) and the caller's list. Each is given the platform it serves.
import type { Readable } from "node:stream";
import { nowSeconds } from "@/lib/db/num";
import type { OptionValues } from "@/lib/options";
import { isMarkupType } from "@/lib/relay/openai/answer-type";
import {
  applyStatusCodeMapping,
  parseUpstreamError,
  RelayError,
  shouldDisableChannel,
  shouldRetry,
  UPSTREAM_ERROR_TYPE,
} from "@/lib/relay/errors";
import { errorResponse, type RelayRequest, type RelayResponse } from "@/lib/relay/http";
import type { RelayCaller } from "@/lib/relay/memory/key-auth";
import type { RouteChannel } from "@/lib/relay/memory/key-user-channel-cache";
import { invalidRequest } from "@/lib/relay/request/request-rules";
import { applyTaskProgress } from "@/lib/tasks/progress";
import { currentRoutingTable, relayOptions, type SubmitOutcome, submitTask, taskCaller } from "@/lib/tasks/submit";
import { FINAL_STATUSES, TASK_STATUS, type TaskPlatform } from "@/lib/tasks/types";
import { callVendor, openVendorStream, relayStreamOf, VendorUnreachable } from "@/lib/tasks/upstream";
import { rowStatusOf, VendorVideo, videoStatusOf } from "@/lib/tasks/video/api";
import { bodyFields, checkVideoPrompt, forwardBody, promptOf, readVideoRequest } from "@/lib/tasks/video/request";
import { findVideo, listVideos, type VideoProperties, type VideoRow, videoObject } from "@/lib/tasks/video/rows";
import {
  fetchVideo,
  progressOf,
  readableVendorText,
  type VendorError,
  vendorError,
  vendorModel,
  videoColumns,
  videoHeaders,
  videoIdUrl,
  videoUrl,
} from "@/lib/tasks/video/vendor";
import { componentLogger } from "@/lib/log";

const log = componentLogger("tasks");

/** The row's action for a create and a remix alike (the console reads it as 生成视频). */
const ACTION = "VIDEO";
/** How long a client's fetch of a running video waits for the vendor's word before answering from the row. */
const REFRESH_TIMEOUT_MS = 5_000;
const VARIANTS: readonly string[] = ["video", "thumbnail", "spritesheet"];
const LIST_LIMIT = { default: 20, max: 100 };

const json = (status: number, body: unknown, requestId: string): RelayResponse => ({
  status,
  headers: { "content-type": "application/json", "x-oneapi-request-id": requestId },
  body: JSON.stringify(body),
});

const notFound = (videoId: string) =>
  new RelayError(404, `视频 ${videoId} 不存在`, { type: "invalid_request_error", code: "video_not_found", param: "video_id" });

/** A row's first columns: what was asked, and when (submit_time in ms, the rest in s). */
function submitColumns(asked: VideoProperties) {
  const now = Date.now();
  return {
    action: ACTION,
    submit_time: now,
    created_at: Math.floor(now / 1000),
    updated_at: Math.floor(now / 1000),
    properties: JSON.stringify(asked),
  };
}

const logDescription = (seconds: number) => (vendorId: string) => `，操作 ${ACTION}，ID ${vendorId}，时长 ${seconds} 秒`;

/** A create or a remix as one channel is asked it. */
type VideoCall = { url: string; contentType: string; body: Uint8Array };

/**
 * Sends a create or a remix to one channel and reads the vendor's answer as a submit outcome; a
 * refusal's error (as the caller will read it) goes to `refused`.
 */
async function sendVideo(
  channel: RouteChannel,
  options: OptionValues,
  request: VideoCall,
  refused: (error: VendorError) => void,
): Promise<SubmitOutcome> {
  const { row } = channel;
  let answer: Awaited<ReturnType<typeof callVendor>>;
  try {
    answer = await callVendor(row, options, {
      method: "POST",
      url: request.url,
      headers: { ...videoHeaders(row), "content-type": request.contentType },
      body: request.body,
    });
  } catch (error) {
    if (!(error instanceof VendorUnreachable)) throw error;
    refused({ status: 502, message: error.message, type: UPSTREAM_ERROR_TYPE, code: error.code });
    return { accepted: false, failReason: error.message, retry: true };
  }
  if (answer.status < 200 || answer.status >= 300) {
    const status = applyStatusCodeMapping(answer.status, channel.config.status_code_mapping);
    const error = { ...vendorError(answer, row.key), status };
    refused(error);
    return {
      accepted: false,
      failReason: error.message,
      retry: shouldRetry(status, row.type),
      disableChannel: shouldDisableChannel(status, parseUpstreamError(answer.status, answer.text), row.type),
    };
  }
  const video = VendorVideo.parse(answer.json ?? {});
  const status = rowStatusOf(video.status) ?? TASK_STATUS.submitted;
  if (!video.id || status === TASK_STATUS.failure) {
    // Nothing to follow (no id), or failed at once: refused, so the charge comes back. An answer
    // that is not JSON at all (a proxy's page) created nothing: another channel may do better.
    const message = readableVendorText(video.id ? video.error?.message || "视频生成失败" : "上游没有返回视频 ID", row.key);
    refused({ status: 502, message, type: UPSTREAM_ERROR_TYPE, code: video.id ? (video.error?.code ?? "video_failed") : "bad_response" });
    return { accepted: false, failReason: message, retry: answer.json === undefined };
  }
  const { progress, data } = videoColumns(video, row.key);
  return {
    accepted: true,
    vendorId: video.id,
    columns: {
      task_id: video.id,
      status,
      progress: status === TASK_STATUS.success ? "100%" : (progress ?? "0%"),
      data,
      updated_at: nowSeconds(),
      ...(status === TASK_STATUS.inProgress || status === TASK_STATUS.success ? { start_time: Date.now() } : {}),
      ...(status === TASK_STATUS.success ? { finish_time: Date.now() } : {}),
    },
  };
}

/**
 * Charges, sends and answers a create or a remix of `asked`: the new video, or the vendor's
 * refusal (its status and message; nothing charged). `call` is the vendor request for a channel.
 */
async function submitVideo(
  platform: TaskPlatform,
  req: RelayRequest,
  requestId: string,
  s: { caller: RelayCaller; options: OptionValues; asked: VideoProperties; channelId?: number; call: (channel: RouteChannel) => VideoCall },
): Promise<RelayResponse> {
  let refusal: VendorError | null = null;
  const plan = {
    platform,
    model: s.asked.model,
    action: ACTION,
    units: s.asked.seconds,
    channelId: s.channelId,
    columns: submitColumns(s.asked),
    describe: logDescription(s.asked.seconds),
  };
  const { outcome } = await submitTask(req, requestId, s.caller, plan, (channel) =>
    sendVideo(channel, s.options, s.call(channel), (e) => {
      refusal = e;
    }),
  );
  if (!outcome.accepted) {
    const e: VendorError = refusal ?? { status: 502, message: outcome.failReason, type: UPSTREAM_ERROR_TYPE, code: null };
    return errorResponse(e.status, e.message, e.type, e.code, requestId);
  }
  const row = await findVideo(s.caller.user.id, outcome.vendorId);
  if (!row) throw new Error(`video ${outcome.vendorId} has no row`);
  return json(200, videoObject(row), requestId);
}

/** `POST /v1/videos`. */
export async function createVideo(platform: TaskPlatform, req: RelayRequest, requestId: string): Promise<RelayResponse> {
  const caller = await taskCaller(req);
  const options = await relayOptions();
  const video = readVideoRequest(req, options);
  const asked: VideoProperties = { model: video.model, seconds: video.seconds, size: video.size, prompt: video.prompt };
  return submitVideo(platform, req, requestId, {
    caller,
    options,
    asked,
    call: (channel) => ({
      url: videoUrl(channel.row),
      contentType: video.contentType || "application/json",
      body: forwardBody(req, video, vendorModel(channel, video.model)),
    }),
  });
}

/**
 * `POST /v1/videos/{id}/remix`: a new video from the caller's finished one and a new prompt, on the
 * channel that made it, billed like a create of the same model and length.
 */
export async function remixVideo(platform: TaskPlatform, req: RelayRequest, requestId: string, videoId: string): Promise<RelayResponse> {
  const caller = await taskCaller(req);
  const options = await relayOptions();
  const prompt = promptOf(bodyFields(req).fields);
  checkVideoPrompt(options, prompt);
  const original = await findVideo(caller.user.id, videoId);
  if (!original) throw notFound(videoId);
  if (original.status !== TASK_STATUS.success) {
    throw new RelayError(400, `视频 ${videoId} 尚未生成完成，不能 remix`, { type: "invalid_request_error", code: "video_not_ready" });
  }
  const from = JSON.parse(original.properties) as VideoProperties;
  const asked: VideoProperties = { model: from.model, seconds: from.seconds, size: from.size, prompt, remix_of: videoId };
  return submitVideo(platform, req, requestId, {
    caller,
    options,
    asked,
    channelId: original.channel_id,
    call: (channel) => ({
      url: videoIdUrl(channel.row, videoId, "/remix"),
      contentType: req.headers.get("content-type") || "application/json",
      body: req.body,
    }),
  });
}

/**
 * The row after asking the vendor about it, when it is still running: the client sees the true
 * state rather than the last poll's. A vendor that does not answer in time leaves the row as it is.
 */
async function refreshed(platform: TaskPlatform, userId: number, row: VideoRow): Promise<VideoRow> {
  if (FINAL_STATUSES.includes(row.status) || row.status === TASK_STATUS.submitting) return row;
  const channel = (await currentRoutingTable()).byId.get(row.channel_id);
  if (!channel) return row;
  try {
    const answer = await fetchVideo(channel.row, await relayOptions(), row.task_id, REFRESH_TIMEOUT_MS);
    if ("error" in answer) return row;
    const progress = progressOf(row, answer.video, channel.row.key);
    if (!progress) return row;
    await applyTaskProgress(platform, progress);
    return (await findVideo(userId, row.task_id)) ?? row;
  } catch (error) {
    log.warn({ err: error, platform: "openai-video", taskId: row.task_id }, "refreshing a task failed");
    return row;
  }
}

/** `GET /v1/videos/{id}`. */
export async function retrieveVideo(platform: TaskPlatform, req: RelayRequest, requestId: string, videoId: string): Promise<RelayResponse> {
  const caller = await taskCaller(req);
  const row = await findVideo(caller.user.id, videoId);
  if (!row) throw notFound(videoId);
  return json(200, videoObject(await refreshed(platform, caller.user.id, row)), requestId);
}

/** The vendor's error body, read (at most 64 KiB) and closed. */
async function readText(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > 64 * 1024) break;
    chunks.push(Buffer.from(chunk));
  }
  body.destroy();
  return Buffer.concat(chunks).toString("utf8");
}

const header = (headers: Record<string, string | string[] | undefined>, name: string) => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** `GET /v1/videos/{id}/content?variant=…`: the vendor's bytes, streamed as they come. */
export async function videoContent(platform: TaskPlatform, req: RelayRequest, requestId: string, videoId: string): Promise<RelayResponse> {
  const caller = await taskCaller(req);
  const variant = req.query.get("variant") ?? "video";
  if (!VARIANTS.includes(variant)) throw invalidRequest("variant", `variant 必须是 ${VARIANTS.join("、")} 之一`);
  const found = await findVideo(caller.user.id, videoId);
  if (!found) throw notFound(videoId);
  const row = await refreshed(platform, caller.user.id, found);
  if (row.status === TASK_STATUS.failure) {
    throw new RelayError(400, `视频 ${videoId} 生成失败，没有可下载的内容`, { type: "invalid_request_error", code: "video_failed" });
  }
  if (row.status !== TASK_STATUS.success) {
    throw new RelayError(400, `视频 ${videoId} 尚未生成完成（${videoStatusOf(row.status)}）`, {
      type: "invalid_request_error",
      code: "video_not_ready",
    });
  }
  const channel = (await currentRoutingTable()).byId.get(row.channel_id);
  if (!channel) throw new RelayError(404, `视频 ${videoId} 所在的渠道已删除，无法下载`, { code: "channel_not_found" });
  let vendor: Awaited<ReturnType<typeof openVendorStream>>;
  try {
    vendor = await openVendorStream(channel.row, await relayOptions(), {
      method: "GET",
      url: videoIdUrl(channel.row, row.task_id, "/content", new URLSearchParams({ variant })),
      headers: { ...videoHeaders(channel.row), accept: "*/*" },
    });
  } catch (error) {
    if (!(error instanceof VendorUnreachable)) throw error;
    throw new RelayError(502, error.message, { type: UPSTREAM_ERROR_TYPE, code: error.code, local: false });
  }
  if (vendor.status < 200 || vendor.status >= 300) {
    const text = await readText(vendor.body);
    const e = vendorError({ status: vendor.status, headers: vendor.headers, text, json: undefined }, channel.row.key);
    return errorResponse(e.status, e.message, e.type, e.code, requestId);
  }
  const type = header(vendor.headers, "content-type") || "application/octet-stream";
  if (isMarkupType(type) || !/^(video|image)\/|^application\/(octet-stream|binary)/i.test(type)) {
    vendor.body.destroy();
    throw new RelayError(502, `上游返回了非视频内容（${type.split(";")[0]}）`, {
      type: UPSTREAM_ERROR_TYPE,
      code: "bad_response_content_type",
      local: false,
    });
  }
  const headers: Record<string, string> = { "content-type": type, "x-oneapi-request-id": requestId };
  const length = header(vendor.headers, "content-length");
  if (length && /^\d+$/.test(length)) headers["content-length"] = length;
  return { status: 200, headers, body: relayStreamOf(vendor.body) };
}

function listLimit(v: string | null): number {
  if (v === null) return LIST_LIMIT.default;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1 || n > LIST_LIMIT.max) throw invalidRequest("limit", `limit 必须是 1 到 ${LIST_LIMIT.max} 之间的整数`);
  return n;
}

/** `GET /v1/videos?after=&limit=&order=`: the caller's videos in OpenAI's list shape, newest first. */
export async function listOwnVideos(req: RelayRequest, requestId: string): Promise<RelayResponse> {
  const caller = await taskCaller(req);
  const limit = listLimit(req.query.get("limit"));
  const order = req.query.get("order") ?? "desc";
  if (order !== "asc" && order !== "desc") throw invalidRequest("order", "order 必须是 asc 或 desc");
  const afterId = req.query.get("after");
  const after = afterId ? await findVideo(caller.user.id, afterId) : null;
  if (afterId && !after) throw invalidRequest("after", `视频 ${afterId} 不存在`);
  const page = await listVideos(caller.user.id, { after, limit, order });
  const data = page.rows.map(videoObject);
  return json(
    200,
    { object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: page.hasMore },
    requestId,
  );
}
