// How drawing and async-task rows read on /midjourney and /task (spec §4 codes, statuses, actions,
// platforms; §9 the spend time over 60 s in red): new-api's labels and tag colours, the progress
// as a number and the spend time. Pure, so the tables and their unit tests share one copy.

export type Look = { label: string; color: string };

const UNKNOWN: Look = { label: "未知", color: "gray" };

/** The drawing actions (spec §4), new-api's names and colours. */
const DRAWING_ACTIONS: Record<string, Look> = {
  IMAGINE: { label: "绘图", color: "blue" },
  UPSCALE: { label: "放大", color: "orange" },
  VARIATION: { label: "变换", color: "grape" },
  HIGH_VARIATION: { label: "强变换", color: "grape" },
  LOW_VARIATION: { label: "弱变换", color: "grape" },
  PAN: { label: "平移", color: "cyan" },
  DESCRIBE: { label: "图生文", color: "yellow" },
  BLEND: { label: "图混合", color: "lime" },
  UPLOAD: { label: "上传文件", color: "blue" },
  SHORTEN: { label: "缩词", color: "pink" },
  REROLL: { label: "重绘", color: "indigo" },
  INPAINT: { label: "局部重绘-提交", color: "violet" },
  ZOOM: { label: "变焦", color: "teal" },
  CUSTOM_ZOOM: { label: "自定义变焦-提交", color: "teal" },
  MODAL: { label: "窗口处理", color: "green" },
  SWAP_FACE: { label: "换脸", color: "lime" },
};

/** The submit codes (spec §4: 0 not submitted, 1 submitted, 21 waiting, 22 duplicate). */
const SUBMIT_CODES: Record<number, Look> = {
  1: { label: "已提交", color: "green" },
  21: { label: "等待中", color: "lime" },
  22: { label: "重复提交", color: "orange" },
  0: { label: "未提交", color: "yellow" },
};

/** Statuses both kinds of task share. */
const COMMON_STATUSES: Record<string, Look> = {
  SUCCESS: { label: "成功", color: "green" },
  NOT_START: { label: "未启动", color: "gray" },
  SUBMITTED: { label: "队列中", color: "yellow" },
  IN_PROGRESS: { label: "执行中", color: "blue" },
  FAILURE: { label: "失败", color: "red" },
};

const DRAWING_STATUSES: Record<string, Look> = { ...COMMON_STATUSES, MODAL: { label: "窗口等待", color: "yellow" } };

const TASK_STATUSES: Record<string, Look> = {
  ...COMMON_STATUSES,
  QUEUED: { label: "排队中", color: "orange" },
  UNKNOWN: UNKNOWN,
  // A row inserted before the vendor answered the submit.
  "": { label: "提交中", color: "dark" },
};

/** The async-task platforms: Suno (spec §4) and OpenAI-style video (issue 25). */
export const TASK_PLATFORM = { suno: "suno", video: "openai-video" } as const;

const TASK_PLATFORMS: Record<string, Look> = {
  [TASK_PLATFORM.suno]: { label: "Suno", color: "green" },
  [TASK_PLATFORM.video]: { label: "视频", color: "blue" },
};

const TASK_ACTIONS: Record<string, Look> = {
  MUSIC: { label: "生成音乐", color: "gray" },
  LYRICS: { label: "生成歌词", color: "pink" },
  VIDEO: { label: "生成视频", color: "blue" },
};

const lookIn = <K extends string | number>(table: Record<K, Look>, key: K): Look => (Object.hasOwn(table, key) ? table[key] : UNKNOWN);

export const drawingActionLook = (action: string) => lookIn(DRAWING_ACTIONS, action);
export const submitCodeLook = (code: number) => lookIn(SUBMIT_CODES, code);
export const drawingStatusLook = (status: string) => lookIn(DRAWING_STATUSES, status);
export const taskStatusLook = (status: string) => lookIn(TASK_STATUSES, status);
export const taskPlatformLook = (platform: string) => lookIn(TASK_PLATFORMS, platform);
export const taskActionLook = (action: string) => lookIn(TASK_ACTIONS, action);

/** "45%" as 45 (clamped to 0–100); null when the row has no progress yet. */
export function progressPercent(progress: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(progress);
  if (!match) return null;
  return Math.min(100, Math.max(0, Number(match[1])));
}

/** Statuses of a task that is not finished yet: its spend time runs to now. */
const RUNNING = new Set(["", "NOT_START", "SUBMITTED", "IN_PROGRESS", "MODAL", "QUEUED"]);

/**
 * Seconds from submit to finish (both in ms), one decimal; for a task still running, to `nowMs`
 * (when the list was read). Null when there is nothing to measure: never submitted, or ended
 * without a finish time.
 */
export function spendSeconds(row: { submit_time: number; finish_time: number; status: string }, nowMs: number): number | null {
  if (row.submit_time <= 0) return null;
  const end = row.finish_time > 0 ? row.finish_time : RUNNING.has(row.status) ? nowMs : 0;
  if (end <= 0) return null;
  return Math.max(0, Math.round((end - row.submit_time) / 100) / 10);
}

/** Spec §9: a spend time over 60 s is red. */
export const spendColor = (seconds: number): "red" | "green" => (seconds > 60 ? "red" : "green");

/** The console's address of a drawing's image: our image proxy, never the vendor's. */
export const drawingImagePath = (mjId: string) => `/mj/image/${encodeURIComponent(mjId)}`;
