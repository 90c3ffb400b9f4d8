// A midjourney-proxy (novicezk's API, with midjourney-proxy-plus's action, modal, shorten,
// insight-face and image-seed) on loopback. Every request needs the `mj-api-secret` it was started
// with. A submit creates a task that moves one step per list-by-condition (or fetch) that names it:
// NOT_START → SUBMITTED → IN_PROGRESS (50%, a preview image) → SUCCESS (100%, the image and its
// buttons), or → FAILURE with a fail reason while `failTasks` is set when it is submitted. A test
// can make the next submit answer anything else (codes 21, 22, 23, 24, 3, an HTTP error). The
// images live on the same server (`/images/<id>.png`), and `POST /worker` answers as root's worker
// proxy would (lib/net/fetch-url.ts), by fetching from itself.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export type MjMockRequest = { method: string; path: string; headers: IncomingHttpHeaders; body: Record<string, any> };

export type MjMockTask = {
  id: string;
  action: string;
  prompt: string;
  promptEn: string;
  description: string;
  state: string;
  status: string;
  progress: string;
  imageUrl: string;
  failReason: string;
  submitTime: number;
  startTime: number;
  finishTime: number;
  buttons: { customId: string; emoji: string; label: string; type: number; style: number }[];
  properties: Record<string, unknown>;
  /** Ends in FAILURE rather than SUCCESS. */
  fails: boolean;
};

/** What the next submit answers instead of creating a task: a submit answer (HTTP 200), or an HTTP error. */
export type MjForcedAnswer =
  | { code: number; description?: string; result?: string; properties?: Record<string, unknown>; createTask?: boolean }
  | { http: number; body: string };

export interface MidjourneyMock {
  url: string;
  secret: string;
  requests: MjMockRequest[];
  tasks: Map<string, MjMockTask>;
  /** Tasks submitted while set end in FAILURE. */
  failTasks: boolean;
  /** Answers for the next submits, in order. */
  forced: MjForcedAnswer[];
  /** The submits received (paths under /mj/submit and /mj/insight-face, any mode prefix). */
  submits(): MjMockRequest[];
  /** Makes a task as if submitted earlier (for rows a test writes itself). */
  addTask(id: string, fields?: Partial<MjMockTask>): MjMockTask;
  reset(): void;
  close(): Promise<void>;
}

/** A 1×1 PNG. */
export const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

const SUBMIT = /^(?:\/[^/]+)?\/mj\/(submit\/[a-z-]+|insight-face\/swap)$/;
const TASK = /^(?:\/[^/]+)?\/mj\/task\/([^/]+)\/(fetch|image-seed)$/;
const LIST = /^(?:\/[^/]+)?\/mj\/task\/list-by-condition$/;
const IMAGE = /^\/images\/([\w.-]+\.png)$/;

const ACTION_OF: Record<string, string> = {
  "submit/imagine": "IMAGINE",
  "submit/describe": "DESCRIBE",
  "submit/blend": "BLEND",
  "submit/shorten": "SHORTEN",
  "submit/modal": "MODAL",
  "insight-face/swap": "SWAP_FACE",
};

function buttonsOf(hash: string) {
  const b = (customId: string, label: string, emoji = "") => ({ customId, emoji, label, type: 2, style: 2 });
  return [
    ...[1, 2, 3, 4].map((i) => b(`MJ::JOB::upsample::${i}::${hash}`, `U${i}`)),
    b(`MJ::JOB::reroll::0::${hash}::SOLO`, "", "🔄"),
    ...[1, 2, 3, 4].map((i) => b(`MJ::JOB::variation::${i}::${hash}`, `V${i}`)),
  ];
}

export async function startMidjourneyMock(secret = "mj-proxy-secret"): Promise<MidjourneyMock> {
  let seq = 0;
  const mock: MidjourneyMock = {
    url: "",
    secret,
    requests: [],
    tasks: new Map(),
    failTasks: false,
    forced: [],
    submits: () => mock.requests.filter((r) => SUBMIT.test(r.path.split("?")[0]!)),
    addTask(id, fields = {}) {
      const task: MjMockTask = {
        id,
        action: "IMAGINE",
        prompt: "",
        promptEn: "",
        description: "/imagine",
        state: "",
        status: "NOT_START",
        progress: "0%",
        imageUrl: "",
        failReason: "",
        submitTime: Date.now(),
        startTime: 0,
        finishTime: 0,
        buttons: [],
        properties: {},
        fails: mock.failTasks,
        ...fields,
      };
      mock.tasks.set(id, task);
      return task;
    },
    reset() {
      mock.requests = [];
      mock.tasks.clear();
      mock.failTasks = false;
      mock.forced = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const newId = () => `${Date.now()}${String(++seq).padStart(4, "0")}`;
  const image = (id: string) => `${mock.url}/images/${id}.png`;

  /** One step of a task's life. */
  function advance(t: MjMockTask) {
    const now = Date.now();
    if (t.status === "NOT_START") t.status = "SUBMITTED";
    else if (t.status === "SUBMITTED") {
      Object.assign(t, { status: "IN_PROGRESS", progress: "50%", startTime: now, imageUrl: image(`${t.id}-preview`) });
    } else if (t.status === "IN_PROGRESS" && t.fails) {
      Object.assign(t, { status: "FAILURE", progress: "", failReason: "Request cancelled due to image filters", finishTime: now });
    } else if (t.status === "IN_PROGRESS") {
      Object.assign(t, {
        status: "SUCCESS",
        progress: "100%",
        finishTime: now,
        imageUrl: image(t.id),
        promptEn: t.prompt,
        buttons: t.action === "IMAGINE" ? buttonsOf(`hash-${t.id}`) : [],
        properties: { finalPrompt: t.prompt, finalZhPrompt: "" },
      });
    }
  }

  const taskObject = (t: MjMockTask) => {
    const { fails: _fails, ...out } = t;
    return out;
  };

  function submit(kind: string, body: Record<string, any>): { status: number; body: string } {
    const forced = mock.forced.shift();
    if (forced && "http" in forced) return { status: forced.http, body: forced.body };
    if (kind === "submit/upload-discord-images") {
      const urls = ((body.base64Array as unknown[]) ?? []).map(() => image(`upload-${newId()}`));
      return { status: 200, body: JSON.stringify({ code: 1, description: "成功", result: urls }) };
    }
    const action = ACTION_OF[kind] ?? (typeof body.action === "string" ? body.action : "UPSCALE");
    const create = () => mock.addTask(newId(), { action, prompt: typeof body.prompt === "string" ? body.prompt : "" });
    if (forced) {
      const id = forced.result ?? (forced.createTask === false ? undefined : create().id);
      return {
        status: 200,
        body: JSON.stringify({ code: forced.code, description: forced.description ?? "", result: id, properties: forced.properties ?? {} }),
      };
    }
    const task = create();
    return {
      status: 200,
      body: JSON.stringify({ code: 1, description: "提交成功", result: task.id, properties: { discordInstanceId: "1118138338562560102" } }),
    };
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: Record<string, any> = {};
      try {
        body = JSON.parse(text || "{}");
      } catch {
        body = {};
      }
      const path = (req.url ?? "").split("?")[0]!;
      mock.requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
      const send = (status: number, out: string | Buffer, type = "application/json") => {
        res.writeHead(status, { "content-type": type });
        res.end(out);
      };
      const png = IMAGE.exec(path);
      if (req.method === "GET" && png) return send(200, PNG, "image/png");
      if (req.method === "POST" && path === "/worker") {
        // Root's worker proxy: fetches `url` for Qiao; here every image is its own.
        const name = IMAGE.exec(new URL(String(body.url)).pathname);
        return name ? send(200, PNG, "image/png") : send(404, "not found", "text/plain");
      }
      if (req.headers["mj-api-secret"] !== mock.secret) return send(401, JSON.stringify({ code: 4, description: "mj-api-secret 错误" }));
      const submitted = SUBMIT.exec(path);
      if (req.method === "POST" && submitted) {
        const out = submit(submitted[1]!, body);
        return send(out.status, out.body);
      }
      if (req.method === "POST" && LIST.test(path)) {
        const ids = Array.isArray(body.ids) ? (body.ids as string[]) : [];
        const found = ids.map((id) => mock.tasks.get(id)).filter((t): t is MjMockTask => !!t);
        for (const t of found) advance(t);
        return send(200, JSON.stringify(found.map(taskObject)));
      }
      const one = TASK.exec(path);
      if (req.method === "GET" && one) {
        const t = mock.tasks.get(one[1]!);
        if (!t) return send(404, JSON.stringify({ code: 4, description: "任务不存在" }));
        if (one[2] === "image-seed") return send(200, JSON.stringify({ code: 1, description: "成功", result: `seed-${t.id}` }));
        advance(t);
        return send(200, JSON.stringify(taskObject(t)));
      }
      send(404, JSON.stringify({ code: 4, description: "not found" }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  mock.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return mock;
}
