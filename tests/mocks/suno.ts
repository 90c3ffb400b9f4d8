// A Suno-API on 127.0.0.1 as new-api's Suno channels call it: `POST /suno/submit/{MUSIC|LYRICS}`
// (Suno-API's submit body; answer `{code: "success", message: "", data: <task id>}`) and
// `POST /suno/fetch {ids}` (answer `{code: "success", data: [{task_id, action, status, fail_reason,
// submit_time, start_time, finish_time, progress, data}]}`, unix seconds, the clips in `data`),
// with `Authorization: Bearer <key>` (else 401). Errors are Suno-API's `{code, message, data: null}`.
//
// A submitted task moves one step per fetch that names it: NOT_START → SUBMITTED → IN_PROGRESS →
// SUCCESS, or → FAILURE when its prompt, description or title contains "FAIL" (Suno's refusal of
// the prompt, with a fail_reason). Tests can also hang every submit (a vendor that never answers),
// answer every submit with an error, or register tasks that answer their end state at once.
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export type SunoStatus = "NOT_START" | "SUBMITTED" | "IN_PROGRESS" | "SUCCESS" | "FAILURE";

export const SUNO_FAIL_REASON = "Unable to generate audio: the prompt names an artist";

const SUCCESS_STEPS: SunoStatus[] = ["NOT_START", "SUBMITTED", "IN_PROGRESS", "SUCCESS"];
const FAILURE_STEPS: SunoStatus[] = ["NOT_START", "SUBMITTED", "IN_PROGRESS", "FAILURE"];
const PROGRESS: Record<SunoStatus, string> = {
  NOT_START: "0%",
  SUBMITTED: "0%",
  IN_PROGRESS: "50%",
  SUCCESS: "100%",
  FAILURE: "100%",
};
/** Suno's own clip statuses behind each task status. */
const CLIP_STATUS: Record<SunoStatus, string> = {
  NOT_START: "submitted",
  SUBMITTED: "submitted",
  IN_PROGRESS: "streaming",
  SUCCESS: "complete",
  FAILURE: "error",
};

export type MockSunoTask = {
  id: string;
  action: "MUSIC" | "LYRICS";
  /** The submit body as received. */
  body: Record<string, unknown>;
  steps: SunoStatus[];
  step: number;
  submitTime: number;
  startTime: number;
  finishTime: number;
};

export type SunoRequest = { method: string; path: string; authorization: string; body: Record<string, unknown> };

export type SunoMock = {
  url: string;
  /** Every request, in order (a held submit too). */
  requests: SunoRequest[];
  tasks: Map<string, MockSunoTask>;
  /** Hold every submit unanswered until reset or close. */
  hangSubmits: boolean;
  /** Answer every submit with this status and body (Suno-API's error) until reset. */
  refuseSubmits: { status: number; body: unknown } | null;
  /** Answer every fetch with this status and body until reset. */
  refuseFetches: { status: number; body: unknown } | null;
  /** A task submitted earlier, one step from its end: the next fetch that names it answers SUCCESS or FAILURE. */
  addTask(id: string, outcome: "success" | "failure", action?: "MUSIC" | "LYRICS"): void;
  reset(): void;
  close(): Promise<void>;
};

const seconds = () => Math.floor(Date.now() / 1000);

function clip(task: MockSunoTask, n: number, status: SunoStatus) {
  const id = `${task.id}-clip${n}`;
  const done = status === "SUCCESS";
  return {
    id,
    video_url: done ? `https://cdn1.suno.ai/${id}.mp4` : "",
    audio_url: done ? `https://cdn1.suno.ai/${id}.mp3` : status === "IN_PROGRESS" ? `https://audiopipe.suno.ai/?item_id=${id}` : "",
    image_url: `https://cdn2.suno.ai/image_${id}.jpeg`,
    image_large_url: `https://cdn2.suno.ai/image_large_${id}.jpeg`,
    major_model_version: "v3",
    model_name: "chirp-v3",
    status: CLIP_STATUS[status],
    title: String(task.body.title ?? ""),
    text: String(task.body.prompt ?? ""),
    metadata: {
      tags: String(task.body.tags ?? ""),
      prompt: String(task.body.prompt ?? ""),
      gpt_description_prompt: task.body.gpt_description_prompt ?? null,
      audio_prompt_id: null,
      duration: done ? 120.5 : null,
      error_type: status === "FAILURE" ? "moderation" : null,
      error_message: status === "FAILURE" ? SUNO_FAIL_REASON : null,
    },
  };
}

function itemOf(task: MockSunoTask) {
  const status = task.steps[task.step]!;
  const data =
    task.action === "LYRICS"
      ? { id: task.id, status: CLIP_STATUS[status], title: "Lyrics", text: status === "SUCCESS" ? "[Verse]\nla la la" : "" }
      : [clip(task, 1, status), clip(task, 2, status)];
  return {
    task_id: task.id,
    action: task.action,
    status,
    fail_reason: status === "FAILURE" ? SUNO_FAIL_REASON : "",
    submit_time: task.submitTime,
    start_time: task.startTime,
    finish_time: task.finishTime,
    progress: PROGRESS[status],
    search_item: "",
    data,
  };
}

function advance(task: MockSunoTask) {
  if (task.step < task.steps.length - 1) task.step++;
  const status = task.steps[task.step];
  if (status === "IN_PROGRESS" && !task.startTime) task.startTime = seconds();
  if ((status === "SUCCESS" || status === "FAILURE") && !task.finishTime) {
    task.startTime ||= seconds();
    task.finishTime = seconds();
  }
}

const wantsFailure = (body: Record<string, unknown>) =>
  ["prompt", "gpt_description_prompt", "title"].some((k) => typeof body[k] === "string" && (body[k] as string).includes("FAIL"));

export async function startSunoMock(key = "suno-channel-key"): Promise<SunoMock> {
  const held: http.ServerResponse[] = [];
  const mock: SunoMock = {
    url: "",
    requests: [],
    tasks: new Map(),
    hangSubmits: false,
    refuseSubmits: null,
    refuseFetches: null,
    addTask(id, outcome, action = "MUSIC") {
      const steps = outcome === "success" ? SUCCESS_STEPS : FAILURE_STEPS;
      mock.tasks.set(id, {
        id,
        action,
        body: { prompt: "seeded" },
        steps,
        step: steps.length - 2,
        submitTime: seconds(),
        startTime: 0,
        finishTime: 0,
      });
    },
    reset() {
      mock.requests = [];
      mock.tasks.clear();
      mock.hangSubmits = false;
      mock.refuseSubmits = null;
      mock.refuseFetches = null;
      for (const res of held.splice(0)) res.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held.splice(0)) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
    res.end(JSON.stringify(body));
  };
  const error = (res: http.ServerResponse, status: number, code: string, message: string) =>
    send(res, status, { code, message, data: null });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      } catch {
        return error(res, 400, "invalid_request", "invalid character in request body");
      }
      const path = (req.url ?? "").split("?")[0]!;
      mock.requests.push({ method: req.method ?? "", path, authorization: req.headers.authorization ?? "", body });
      if (req.headers.authorization !== `Bearer ${key}`) return error(res, 401, "unauthorized", "invalid api key");

      const submit = /^\/suno\/submit\/([^/]+)$/.exec(path);
      if (req.method === "POST" && submit) {
        if (mock.hangSubmits) return void held.push(res);
        if (mock.refuseSubmits) return send(res, mock.refuseSubmits.status, mock.refuseSubmits.body);
        const action = submit[1]!.toUpperCase();
        if (action !== "MUSIC" && action !== "LYRICS") return error(res, 400, "invalid_request", "invalid action");
        if (action === "LYRICS" && !body.prompt) return error(res, 400, "invalid_request", "prompt is empty");
        if (body.continue_clip_id && !body.task_id) return error(res, 400, "invalid_request", "task_id is empty");
        const id = randomUUID();
        mock.tasks.set(id, {
          id,
          action,
          body,
          steps: wantsFailure(body) ? FAILURE_STEPS : SUCCESS_STEPS,
          step: 0,
          submitTime: seconds(),
          startTime: 0,
          finishTime: 0,
        });
        return send(res, 200, { code: "success", message: "", data: id });
      }
      if (req.method === "POST" && path === "/suno/fetch") {
        if (mock.refuseFetches) return send(res, mock.refuseFetches.status, mock.refuseFetches.body);
        const ids = Array.isArray(body.ids) ? body.ids.map(String) : [];
        const found = ids.flatMap((id) => {
          const task = mock.tasks.get(id);
          if (!task) return [];
          advance(task);
          return [itemOf(task)];
        });
        return send(res, 200, { code: "success", message: "", data: found });
      }
      return error(res, 404, "not_found", `no route ${req.method} ${path}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  mock.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return mock;
}
