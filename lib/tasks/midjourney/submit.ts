// One Midjourney submit: imagine, describe, blend, shorten, upload, swap_face, and the follow-ups
// on an earlier task (change, simple-change, action, modal). The body goes to the proxy as the
// client sent it, less what the Mj* options withhold; the money, the row and the retries are
// lib/tasks/submit.ts's. The proxy's answer codes decide (new-api's reading of them):
//   1 submitted, 22 queued (answered as 1): accepted and billed;
//   21 the task exists: accepted and billed; when the proxy says it already succeeded the row is
//      finished at once (code 1), and the client gets 1 (21 stays for an inpaint or custom zoom:
//      it means "now call /submit/modal");
//   3 no account instance: refused, and the channel auto-disabled;
//   anything else (23 queue full, 24 prompt refused…), a non-200 answer or no answer: refused,
//   the charge returned, the row FAILURE with the proxy's description.
import { RelayError } from "@/lib/relay/errors";
import type { RelayRequest, RelayResponse } from "@/lib/relay/http";
import type { RouteChannel } from "@/lib/relay/memory/key-user-channel-cache";
import type { OptionValues } from "@/lib/options";
import { isObj, type Obj } from "@/lib/obj";
import { relayOptions, type SubmitOutcome, submitTask, taskCaller } from "@/lib/tasks/submit";
import { callVendor, type VendorAnswer, VendorUnreachable, vendorBase } from "@/lib/tasks/upstream";
import { TASK_STATUS, type TaskPlatform } from "@/lib/tasks/types";
import type { TaskColumns } from "@/lib/tasks/charge";
import {
  ActionError,
  buttonAction,
  changeAction,
  type FollowUp,
  MJ_ACTION,
  type MjAction,
  MODAL_PENDING_ACTIONS,
  modalAction,
  modelOfAction,
  simpleChangeAction,
} from "@/lib/tasks/midjourney/actions";
import { MjSubmitAnswer } from "@/lib/tasks/midjourney/api";
import { mjJson, readJsonObject, upstreamFailure } from "@/lib/tasks/midjourney/answer";
import { ownTask } from "@/lib/tasks/midjourney/rows";

/** What a submit path asks for: a new task of one action, or a follow-up read from the body. */
export type SubmitKind = { action: MjAction } | { followUp: "change" | "simple-change" | "action" | "modal" } | { swapFace: true };

/** The proxy's submit timeout (new-api's). */
const SUBMIT_TIMEOUT_MS = 60_000;

const CODE = { submitted: 1, noInstance: 3, exists: 21, queued: 22 } as const;

/** Statuses a proxy may report for a task that exists (code 21). */
const KNOWN_STATUSES: ReadonlySet<string> = new Set([
  TASK_STATUS.notStart,
  TASK_STATUS.submitted,
  TASK_STATUS.inProgress,
  TASK_STATUS.modal,
  TASK_STATUS.success,
]);

const bad = (message: string) => new RelayError(400, message, { type: "invalid_request_error" });

function followUpOf(kind: "change" | "simple-change" | "action" | "modal", body: Obj): FollowUp {
  try {
    if (kind === "change") return changeAction(body);
    if (kind === "simple-change") return simpleChangeAction(body);
    if (kind === "action") return buttonAction(body);
    return modalAction(body);
  } catch (error) {
    if (error instanceof ActionError) throw bad(error.message);
    throw error;
  }
}

const nonEmpty = (v: unknown) => typeof v === "string" && v.trim() !== "";

/** The body the proxy gets: the client's, less what the options withhold. */
export function forwardedBody(body: Obj, o: OptionValues): Obj {
  const out: Obj = { ...body };
  if (!o.MjAccountFilterEnabled) delete out.accountFilter;
  // With notifications on, the proxy calls the client's hook itself (and learns where it is).
  if (!o.MjNotifyEnabled) delete out.notifyHook;
  if (o.MjModeClearEnabled && typeof out.prompt === "string") out.prompt = out.prompt.replace(/--(fast|relax|turbo)/g, "");
  return out;
}

/** What the proxy's answer means for the task (the framework charges, accepts or refunds). */
export function outcomeOf(action: MjAction, answer: VendorAnswer, now = Date.now()): SubmitOutcome {
  const read = MjSubmitAnswer.safeParse(answer.json);
  if (!read.success) {
    return {
      accepted: false,
      failReason: `上游返回了无法识别的应答（HTTP ${answer.status}）`,
      retry: answer.status >= 500 || answer.status === 429,
    };
  }
  const { code, description = "", result, properties } = read.data;
  const vendorId = typeof result === "string" ? result : "";
  const refused = (failReason: string, more: Partial<Extract<SubmitOutcome, { accepted: false }>> = {}): SubmitOutcome => ({
    accepted: false,
    failReason,
    columns: { code, description, mj_id: vendorId },
    ...more,
  });
  if (answer.status !== 200) {
    return refused(description || `上游返回 HTTP ${answer.status}`, {
      retry: answer.status >= 500 || answer.status === 429,
      disableChannel: code === CODE.noInstance,
    });
  }
  if (code === CODE.noInstance) return refused(description || "无可用的账号实例", { disableChannel: true });
  if (code !== CODE.submitted && code !== CODE.exists && code !== CODE.queued) return refused(description || `提交失败（code ${code}）`);

  const columns: Record<string, string | number> = { code, description, mj_id: vendorId, status: TASK_STATUS.submitted };
  const finished = () => {
    columns.status = TASK_STATUS.success;
    columns.progress = "100%";
    columns.start_time = now;
    columns.finish_time = now;
  };
  if (action === MJ_ACTION.upload) {
    // An upload's result is the list of uploaded images: done once answered.
    const urls = Array.isArray(result) ? result : [];
    if (code === CODE.submitted) {
      finished();
      columns.image_url = urls[0] ?? "";
    }
    return { accepted: true, vendorId, columns };
  }
  if (!vendorId) return refused("上游未返回任务 ID");
  if (code === CODE.exists && properties) {
    const status = typeof properties.status === "string" ? properties.status : "";
    if (typeof properties.imageUrl === "string") columns.image_url = properties.imageUrl;
    if (KNOWN_STATUSES.has(status)) columns.status = status;
    if (status === TASK_STATUS.success) {
      finished();
      columns.code = CODE.submitted;
    }
  }
  return { accepted: true, vendorId, columns };
}

/** The client's answer: the proxy's, with 22 (and 21, but for a modal-pending action) said as 1. */
function clientAnswer(action: MjAction, answer: VendorAnswer, requestId: string): RelayResponse {
  const body = answer.json;
  if (!isObj(body)) return upstreamFailure(`上游返回了无法识别的应答（HTTP ${answer.status}）`, requestId);
  const rewritten =
    answer.status === 200 && (body.code === CODE.queued || (body.code === CODE.exists && !MODAL_PENDING_ACTIONS.has(action)));
  return mjJson(answer.status, rewritten ? { ...body, code: CODE.submitted } : body, requestId);
}

/** The handler of one submit path; `upstreamPath` is the proxy's path (mode prefix kept). */
export function submitHandler(platform: TaskPlatform, kind: SubmitKind, upstreamPath: string) {
  return async (req: RelayRequest, requestId: string): Promise<RelayResponse> => {
    const caller = await taskCaller(req);
    const body = readJsonObject(req);
    const options = await relayOptions();

    let action: MjAction;
    let prompt = typeof body.prompt === "string" ? body.prompt : "";
    let channelId: number | undefined;
    if ("action" in kind) {
      action = kind.action;
      if (action === MJ_ACTION.imagine && !nonEmpty(body.prompt)) throw bad("prompt 不能为空");
    } else if ("swapFace" in kind) {
      action = MJ_ACTION.swapFace;
      if (!nonEmpty(body.sourceBase64) || !nonEmpty(body.targetBase64)) throw bad("sourceBase64 和 targetBase64 不能为空");
      prompt = "InsightFace";
    } else {
      const followUp = followUpOf(kind.followUp, body);
      action = followUp.action;
      // A follow-up acts on one of the caller's own tasks, on the channel (the proxy) that ran it.
      const origin = await ownTask(caller.user.id, followUp.taskId);
      if (!origin) throw new RelayError(404, `任务不存在：${followUp.taskId}`, { type: "invalid_request_error" });
      if (options.MjActionCheckSuccessEnabled && kind.followUp !== "modal" && origin.status !== TASK_STATUS.success) {
        throw bad(`原任务尚未成功（${origin.status || "提交中"}），不能执行此操作`);
      }
      channelId = origin.channelId;
      prompt = origin.prompt;
    }

    const forwarded = forwardedBody(body, options);
    const query = req.query.toString();
    let last: VendorAnswer | VendorUnreachable | null = null;
    const send = async (channel: RouteChannel): Promise<SubmitOutcome> => {
      try {
        last = await callVendor(channel.row, options, {
          method: "POST",
          url: `${vendorBase(channel.row)}${upstreamPath}${query ? `?${query}` : ""}`,
          headers: { "mj-api-secret": channel.row.key },
          body: forwarded,
          timeoutMs: SUBMIT_TIMEOUT_MS,
        });
      } catch (error) {
        if (!(error instanceof VendorUnreachable)) throw error;
        last = error;
        return { accepted: false, failReason: error.message, retry: true };
      }
      return outcomeOf(action, last);
    };
    const columns: TaskColumns = { action, prompt, submit_time: Date.now(), progress: "0%" };
    await submitTask(req, requestId, caller, { platform, model: modelOfAction(action), action, units: 1, channelId, columns }, send);
    const answered = last as VendorAnswer | VendorUnreachable | null;
    if (!answered) throw new Error("the submit ended without asking the proxy");
    if (answered instanceof VendorUnreachable) return upstreamFailure(answered.message, requestId);
    return clientAnswer(action, answered, requestId);
  };
}
