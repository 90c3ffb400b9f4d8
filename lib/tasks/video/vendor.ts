// The vendor side of OpenAI's video API, on the two channel types that serve it: OpenAI (1) at
// `{base}/v1/videos` with a Bearer key, and Azure OpenAI (3) on its v1 surface,
// `{endpoint}/openai/v1/videos?api-version=preview` with the `api-key` header, where the body's
// `model` names the deployment. Addresses, headers, one video fetched, its answer read as progress.
import type { RoutingChannel } from "@/lib/channels/routing";
import { CHANNEL_TYPES } from "@/lib/channels/catalog";
import { hideSecrets, maskSensitiveText } from "@/lib/net/mask";
import type { OptionValues } from "@/lib/options";
import { parseUpstreamError, UPSTREAM_ERROR_TYPE } from "@/lib/relay/errors";
import { resolveUpstreamModel } from "@/lib/relay/memory/channel";
import type { RouteChannel } from "@/lib/relay/memory/key-user-channel-cache";
import { azureDeployment } from "@/lib/relay/providers/azure";
import { callVendor, type VendorAnswer, vendorBase } from "@/lib/tasks/upstream";
import { TASK_STATUS, type TaskProgress } from "@/lib/tasks/types";
import { rowStatusOf, VendorVideo, withoutAddresses } from "@/lib/tasks/video/api";
import { componentLogger } from "@/lib/log";

const log = componentLogger("tasks");

/**
 * Azure serves the video API as a preview of its v1 surface: `api-version=preview` (the channel's
 * dated api-version is for the deployment routes and is not accepted there).
 */
export const AZURE_VIDEO_API_VERSION = "preview";

/** A poll's or a refresh's wait for one video's state. */
export const POLL_TIMEOUT_MS = 15_000;

type Channel = Pick<RoutingChannel, "type" | "base_url" | "key" | "openai_organization">;

const isAzure = (channel: Pick<RoutingChannel, "type">) => channel.type === CHANNEL_TYPES.Azure;

/** `{base}/v1/videos{rest}` (Azure: `{base}/openai/v1/videos{rest}?api-version=preview`), with `query`. */
export function videoUrl(channel: Pick<RoutingChannel, "type" | "base_url">, rest = "", query?: URLSearchParams): string {
  const params = new URLSearchParams(query);
  if (isAzure(channel)) params.set("api-version", AZURE_VIDEO_API_VERSION);
  const search = params.size ? `?${params}` : "";
  return `${vendorBase(channel)}${isAzure(channel) ? "/openai/v1/videos" : "/v1/videos"}${rest}${search}`;
}

/** `{base}/v1/videos/{id}{rest}`. */
export const videoIdUrl = (channel: Pick<RoutingChannel, "type" | "base_url">, vendorId: string, rest = "", query?: URLSearchParams) =>
  videoUrl(channel, `/${encodeURIComponent(vendorId)}${rest}`, query);

export function videoHeaders(channel: Channel): Record<string, string> {
  if (isAzure(channel)) return { "api-key": channel.key };
  const headers: Record<string, string> = { authorization: `Bearer ${channel.key}` };
  if (channel.openai_organization) headers["openai-organization"] = channel.openai_organization;
  return headers;
}

/** The `model` the vendor is asked for: the channel's mapping applied; on Azure, the deployment. */
export function vendorModel(channel: RouteChannel, model: string): string {
  const upstream = resolveUpstreamModel(channel.config, model);
  return isAzure(channel.row) ? azureDeployment(upstream) : upstream;
}

/** Vendor text as a user may read it: the channel's key, other secrets, hosts and URLs cut out. */
export const readableVendorText = (text: string, key: string) => maskSensitiveText(hideSecrets(text, key));

export type VendorError = { status: number; message: string; type: string; code: string | number | null };

/** A vendor's error answer as the caller reads it. */
export function vendorError(answer: VendorAnswer, key: string): VendorError {
  const e = parseUpstreamError(answer.status, answer.text);
  return { status: answer.status, message: readableVendorText(e.message, key), type: e.type || UPSTREAM_ERROR_TYPE, code: e.code };
}

/** `GET …/videos/{id}`: the vendor's video, or why not (its error answer). Throws VendorUnreachable. */
export async function fetchVideo(
  channel: RoutingChannel,
  options: OptionValues,
  vendorId: string,
  timeoutMs = POLL_TIMEOUT_MS,
): Promise<{ video: VendorVideo } | { error: VendorError }> {
  const answer = await callVendor(channel, options, {
    method: "GET",
    url: videoIdUrl(channel, vendorId),
    headers: videoHeaders(channel),
    timeoutMs,
  });
  if (answer.status < 200 || answer.status >= 300) return { error: vendorError(answer, channel.key) };
  return { video: VendorVideo.parse(answer.json ?? {}) };
}

/**
 * Row columns a video answer carries, for the submit's accept and for every poll: its progress,
 * and the answer itself (`data`) without addresses, its error's text readable as the user reads it.
 */
export function videoColumns(video: VendorVideo, key: string): { progress?: string; data: string } {
  const progress = video.progress === undefined ? undefined : `${Math.min(100, Math.max(0, Math.round(video.progress)))}%`;
  const error = video.error ? { ...video.error, message: readableVendorText(video.error.message ?? "", key) } : video.error;
  return { ...(progress === undefined ? {} : { progress }), data: JSON.stringify(withoutAddresses({ ...video, error })) };
}

/** Statuses of a task the vendor has not started yet. */
const NOT_STARTED: ReadonlySet<string> = new Set([TASK_STATUS.submitting, TASK_STATUS.notStart, TASK_STATUS.submitted, TASK_STATUS.queued]);

/**
 * What a video answer says about the task `task` (its row id and current status), or null for a
 * status the API does not define (left as it is until an answer that does).
 */
export function progressOf(task: { id: number; status: string }, video: VendorVideo, key: string): TaskProgress | null {
  const status = rowStatusOf(video.status);
  if (status === undefined) {
    log.warn({ platform: "openai-video", taskId: task.id, vendorStatus: video.status }, "unknown vendor status");
    return null;
  }
  const { progress, data } = videoColumns(video, key);
  const p: TaskProgress = { id: task.id, status, columns: { data } };
  if (progress !== undefined) p.progress = progress;
  if (status !== TASK_STATUS.queued && NOT_STARTED.has(task.status)) p.startTime = Date.now();
  if (status === TASK_STATUS.success && video.completed_at !== undefined) p.finishTime = video.completed_at * 1000;
  if (status === TASK_STATUS.failure) {
    p.failReason = readableVendorText(video.error?.message || video.error?.code || "视频生成失败", key);
  }
  return p;
}
