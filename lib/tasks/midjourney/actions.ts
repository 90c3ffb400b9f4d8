// Midjourney's actions (spec §4) and how a submit names one: by its path (imagine, describe…), by
// `{taskId, action, index}` (change), by "<taskId> U1" (simple-change), or by a button's customId
// (action, midjourney-proxy-plus: "MJ::JOB::upsample::2::<hash>"). Each action is billed as its own
// pseudo-model, mj_<action> (swap_face for SWAP_FACE). Pure: the submit handler acts on the answers.

export const MJ_ACTION = {
  imagine: "IMAGINE",
  describe: "DESCRIBE",
  blend: "BLEND",
  upscale: "UPSCALE",
  variation: "VARIATION",
  highVariation: "HIGH_VARIATION",
  lowVariation: "LOW_VARIATION",
  pan: "PAN",
  reroll: "REROLL",
  inpaint: "INPAINT",
  zoom: "ZOOM",
  customZoom: "CUSTOM_ZOOM",
  modal: "MODAL",
  shorten: "SHORTEN",
  swapFace: "SWAP_FACE",
  upload: "UPLOAD",
} as const;

export type MjAction = (typeof MJ_ACTION)[keyof typeof MJ_ACTION];

/** The priced pseudo-model of an action (the ModelPrice key, the log's model). */
export function modelOfAction(action: MjAction): string {
  return action === MJ_ACTION.swapFace ? "swap_face" : `mj_${action.toLowerCase()}`;
}

/**
 * Actions whose answer code 21 means "waiting for the modal window" (the client must call
 * /submit/modal next), so it is passed on as 21 rather than turned into 1. They cost nothing
 * themselves: the modal call that completes them is billed.
 */
export const MODAL_PENDING_ACTIONS: ReadonlySet<string> = new Set([MJ_ACTION.inpaint, MJ_ACTION.customZoom]);

/** A follow-up: an action on an earlier task of the caller's. */
export type FollowUp = { taskId: string; action: MjAction };

/** Why a follow-up's body cannot be read; the message is the client's. */
export class ActionError extends Error {}

const CHANGE_ACTIONS: ReadonlySet<string> = new Set([MJ_ACTION.upscale, MJ_ACTION.variation, MJ_ACTION.reroll]);

const index1to4 = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= 4) || /^[1-4]$/.test(String(v));

const taskIdOf = (v: unknown): string => {
  const id = typeof v === "number" ? String(v) : typeof v === "string" ? v.trim() : "";
  if (!id) throw new ActionError("缺少 taskId（原任务 ID）");
  return id;
};

/** `/submit/change`: `{taskId, action: UPSCALE|VARIATION|REROLL, index: 1…4}` (no index for REROLL). */
export function changeAction(body: Record<string, unknown>): FollowUp {
  const taskId = taskIdOf(body.taskId);
  const action = typeof body.action === "string" ? body.action.toUpperCase() : "";
  if (!CHANGE_ACTIONS.has(action)) throw new ActionError("action 只能是 UPSCALE、VARIATION 或 REROLL");
  if (action !== MJ_ACTION.reroll && !index1to4(body.index)) throw new ActionError("index 须为 1 到 4");
  return { taskId, action: action as MjAction };
}

/** `/submit/modal`: `{taskId, prompt?, maskBase64?}`, completing a task that waits in MODAL. */
export function modalAction(body: Record<string, unknown>): FollowUp {
  return { taskId: taskIdOf(body.taskId), action: MJ_ACTION.modal };
}

/** `/submit/simple-change`: `{content: "<taskId> U1|V2|R"}`. */
export function simpleChangeAction(body: Record<string, unknown>): FollowUp {
  const content = typeof body.content === "string" ? body.content.trim() : "";
  const m = /^(\S+) ([uUvV][1-4]|[rR])$/.exec(content);
  if (!m) throw new ActionError("content 格式应为「任务ID U1~U4|V1~V4|R」");
  const op = m[2]!.toLowerCase();
  const action = op === "r" ? MJ_ACTION.reroll : op[0] === "u" ? MJ_ACTION.upscale : MJ_ACTION.variation;
  return { taskId: m[1]!, action };
}

/**
 * `/submit/action`: `{taskId, customId}`, the customId of one of the task's buttons:
 * "MJ::JOB::upsample::2::<hash>", "MJ::JOB::variation::1::…", "MJ::JOB::low_variation::1::…",
 * "MJ::JOB::pan_left::1::…", "MJ::JOB::reroll::0::…", "MJ::Outpaint::50::1::…" (zoom),
 * "MJ::CustomZoom::…", "MJ::Inpaint::1::…".
 */
export function buttonAction(body: Record<string, unknown>): FollowUp {
  const customId = typeof body.customId === "string" ? body.customId.trim() : "";
  if (!customId) throw new ActionError("缺少 customId");
  const parts = customId.split("::");
  const job = parts[1] === "JOB";
  const name = ((job ? parts[2] : parts[1]) ?? "").toLowerCase();
  const index = job ? parts[3] : undefined;
  let action: MjAction;
  if (name.includes("upsample")) {
    if (!index1to4(index)) throw new ActionError(`customId 中的序号无效：${customId}`);
    action = MJ_ACTION.upscale;
  } else if (name === "variation") {
    if (!index1to4(index)) throw new ActionError(`customId 中的序号无效：${customId}`);
    action = MJ_ACTION.variation;
  } else if (name === "low_variation") action = MJ_ACTION.lowVariation;
  else if (name === "high_variation") action = MJ_ACTION.highVariation;
  else if (name.includes("pan")) action = MJ_ACTION.pan;
  else if (name.includes("reroll")) action = MJ_ACTION.reroll;
  else if (name === "outpaint") action = MJ_ACTION.zoom;
  else if (name === "customzoom") action = MJ_ACTION.customZoom;
  else if (name === "inpaint") action = MJ_ACTION.inpaint;
  else throw new ActionError(`未知的操作：${customId}`);
  return { taskId: taskIdOf(body.taskId), action };
}
