// `POST /suno/submit/{music|lyrics}`: a song or lyrics task, charged at ModelPrice suno_music /
// suno_lyrics through the task framework (lib/tasks/submit.ts), sent on as Suno-API's submit to
// `{base}/suno/submit/{MUSIC|LYRICS}` (new-api's path) with the channel key as bearer. A
// continuation (continue_clip_id + task_id) goes to the channel of the caller's task it extends.
import { getDirectDb } from "@/lib/db/direct";
import { int } from "@/lib/db/num";
import { maskSensitiveText } from "@/lib/net/mask";
import { RelayError, shouldDisableChannel } from "@/lib/relay/errors";
import type { RelayRequest, RelayResponse } from "@/lib/relay/http";
import type { RouteChannel } from "@/lib/relay/memory/key-user-channel-cache";
import { relayOptions, type SubmitOutcome, submitTask, taskCaller } from "@/lib/tasks/submit";
import { SunoAnswer, SunoSubmitBody } from "@/lib/tasks/suno/api";
import { invalidRequest, parseJsonBody, sunoJson, sunoMessage } from "@/lib/tasks/suno/wire";
import { TASK_STATUS, type TaskPlatform } from "@/lib/tasks/types";
import { callVendor, VendorUnreachable, vendorBase } from "@/lib/tasks/upstream";

/** The actions of `/suno/submit/{action}`, and the priced model of each. */
export const SUNO_MODELS = { MUSIC: "suno_music", LYRICS: "suno_lyrics" } as const;
type SunoAction = keyof typeof SUNO_MODELS;

/** Suno-API's default model for a song (new-api's too). */
const DEFAULT_MV = "chirp-v3-0";

/** Stored whole as the row's properties (a TEXT column: 64 KB on MySQL); longer input is refused. */
const MAX_INPUT_BYTES = 60_000;

/** Which statuses send the submit to another channel: the vendor's trouble, not the request's. */
const retryable = (status: number) => status >= 500 || status === 429;

export async function submitSuno(
  platform: TaskPlatform,
  req: RelayRequest,
  requestId: string,
  actionInPath: string,
): Promise<RelayResponse> {
  const caller = await taskCaller(req);
  const action = actionInPath.toUpperCase();
  if (!Object.hasOwn(SUNO_MODELS, action)) throw invalidRequest(`不支持的 Suno 操作：${actionInPath}`, "invalid_action");
  const { body, input } = readSubmitBody(req, action as SunoAction);

  let channelId: number | undefined;
  if (body.continue_clip_id) {
    if (!body.task_id) throw invalidRequest("续写（continue_clip_id）需要原任务的 task_id");
    channelId = await originChannel(caller.user.id, platform.name, body.task_id);
  }

  // The vendor's refusal as the client will read it (its HTTP status, its code), kept from the last channel tried.
  let refusal = { status: 500, code: "fail_to_fetch_task" };
  const send = async ({ row: channel }: RouteChannel): Promise<SubmitOutcome> => {
    let answer: Awaited<ReturnType<typeof callVendor>>;
    try {
      answer = await callVendor(channel, await relayOptions(), {
        method: "POST",
        url: `${vendorBase(channel)}/suno/submit/${action}`,
        headers: { authorization: `Bearer ${channel.key}` },
        body,
      });
    } catch (error) {
      if (!(error instanceof VendorUnreachable)) throw error;
      refusal = { status: 500, code: error.code };
      return { accepted: false, failReason: error.message, retry: true };
    }
    const parsed = SunoAnswer.safeParse(answer.json);
    const said = parsed.success ? parsed.data : null;
    // The id is the row's task_id, a VARCHAR(191).
    const vendorId = typeof said?.data === "string" && said.data.length <= 191 ? said.data : "";
    if (answer.status === 200 && said?.code === "success" && vendorId) {
      const now = Math.floor(Date.now() / 1000);
      return { accepted: true, vendorId, columns: { task_id: vendorId, status: TASK_STATUS.notStart, updated_at: now } };
    }
    const message = maskSensitiveText(sunoMessage(said?.message, answer.text) || `Suno 上游返回 HTTP ${answer.status}`);
    if (answer.status !== 200) {
      refusal = { status: answer.status >= 400 ? answer.status : 500, code: "fail_to_fetch_task" };
      return {
        accepted: false,
        failReason: message,
        retry: retryable(answer.status),
        disableChannel: shouldDisableChannel(answer.status, answer.text, channel.type),
      };
    }
    // HTTP 200 that is no acceptance: the vendor read the request and said no (its code), or answered nonsense.
    refusal = { status: 500, code: said?.code ? String(said.code) : "unmarshal_response_body_failed" };
    return { accepted: false, failReason: message };
  };

  const now = Date.now();
  const seconds = Math.floor(now / 1000);
  const result = await submitTask(
    req,
    requestId,
    caller,
    {
      platform,
      model: SUNO_MODELS[action as SunoAction],
      action,
      units: 1,
      channelId,
      columns: { action, submit_time: now, created_at: seconds, updated_at: seconds, properties: input, progress: "0%" },
    },
    send,
  );
  if (!result.outcome.accepted) throw new RelayError(refusal.status, result.outcome.failReason, { code: refusal.code });
  return sunoJson(200, { code: "success", message: "", data: result.outcome.vendorId }, requestId);
}

/** The body checked before anything is charged: its known fields typed, lyrics with a prompt, a song with a model. */
function readSubmitBody(req: RelayRequest, action: SunoAction): { body: SunoSubmitBody; input: string } {
  const parsed = SunoSubmitBody.safeParse(parseJsonBody(req));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalidRequest(`请求参数 ${issue?.path.join(".") || "body"} 无效：${issue?.message ?? ""}`);
  }
  const body = parsed.data;
  if (action === "LYRICS" && !body.prompt) throw invalidRequest("生成歌词需要 prompt", "prompt_empty");
  if (action === "MUSIC" && !body.mv) body.mv = DEFAULT_MV;
  const input = JSON.stringify(body);
  if (Buffer.byteLength(input) > MAX_INPUT_BYTES) throw invalidRequest(`请求内容过长（不能超过 ${MAX_INPUT_BYTES} 字节）`);
  return { body, input };
}

/** The channel of the caller's task that a continuation extends; another user's task, or none, is the client's 400. */
async function originChannel(userId: number, platform: string, taskId: string): Promise<number> {
  const db = await getDirectDb();
  const [row] = await db.query("SELECT channel_id FROM tasks WHERE user_id = ? AND platform = ? AND task_id = ? ORDER BY id DESC", [
    userId,
    platform,
    taskId,
  ]);
  if (!row) throw invalidRequest(`原任务 ${taskId} 不存在`, "task_not_exist");
  return int(row.channel_id);
}
