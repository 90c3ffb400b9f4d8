// Reads large JSON request bodies off the event loop, in one worker thread per relay process
// (the Node entry, lib/relay/doors/node.ts, offers it to the pipeline).
//
// The thread gets the body's bytes without a copy when they sit in a SharedArrayBuffer (the Node
// entry reads large bodies into one), and answers with a summary whose size does not grow with the
// body (request-body.ts). It starts with the first large body and does not keep the process alive.
// Where it cannot run (no worker file beside this code, or threads that keep dying), the same
// summary is made on the event loop: the answer never depends on where it was made.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { summariseJsonBody, type BodySummaryResult } from "./request-body";
import type { RelayMode } from "../types";
import { componentLogger } from "@/lib/log";

const log = componentLogger("relay");

export interface BodyJob {
  id: number;
  bytes: Uint8Array;
  mode: RelayMode;
  defaultModel: string;
  sensitiveWords: string | null;
}
export type BodyJobResult = { id: number; result: BodySummaryResult } | { id: number; failed: string };

type Pending = { job: BodyJob; resolve: (r: BodySummaryResult) => void; reject: (e: Error) => void };

/** What a thread runs: a file, or code (`eval`). */
export interface WorkerSource {
  code: string;
  eval: boolean;
}

/** How the worker is started: the built file next to the bundle, or the TypeScript source through tsx. */
function workerSource(): WorkerSource | null {
  let here: string;
  try {
    here = path.dirname(fileURLToPath(import.meta.url));
  } catch {
    return null;
  }
  // scripts/build.mjs writes body-worker.mjs beside server.mjs; this code sits in chunks/ below it.
  for (const file of [path.join(here, "body-worker.mjs"), path.join(here, "..", "body-worker.mjs")]) {
    if (existsSync(file)) return { code: file, eval: false };
  }
  // From the sources (tests, `tsx`): the thread loads tsx itself (Node 20 gives a worker no --import).
  const source = path.join(here, "body-worker.ts");
  if (!existsSync(source)) return null;
  let tsx: string;
  try {
    tsx = import.meta.resolve("tsx/esm/api");
  } catch {
    return null;
  }
  const code = `import(${JSON.stringify(tsx)}).then((api) => api.tsImport(${JSON.stringify(pathToFileURL(source).href)}, ${JSON.stringify(import.meta.url)}));`;
  return { code, eval: true };
}

export class BodyThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** Threads that died; after MAX_DEATHS every body is read on the event loop. */
  private deaths = 0;
  private source: WorkerSource | null | undefined;

  /** `sourceOf`: what the thread runs (tests give threads that fail). */
  constructor(private readonly sourceOf: () => WorkerSource | null = workerSource) {}

  /** Whether a thread is running now. */
  get running(): boolean {
    return this.worker !== null;
  }

  summarise(bytes: Uint8Array, mode: RelayMode, defaultModel: string, sensitiveWords: string | null = null): Promise<BodySummaryResult> {
    const worker = this.ensureWorker();
    if (!worker) return Promise.resolve(summariseJsonBody(bytes, mode, defaultModel, sensitiveWords));
    const job: BodyJob = { id: this.nextId++, bytes: shared(bytes), mode, defaultModel, sensitiveWords };
    return new Promise((resolve, reject) => {
      this.pending.set(job.id, { job, resolve, reject });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage(job);
    });
  }

  private ensureWorker(): Worker | null {
    if (this.worker) return this.worker;
    if (this.deaths >= MAX_DEATHS) return null;
    this.source ??= this.sourceOf();
    if (!this.source) return null;
    const worker = new Worker(this.source.code, { eval: this.source.eval, execArgv: [], stdout: false, stderr: false });
    worker.unref();
    worker.on("message", (m: BodyJobResult) => this.settle(m));
    worker.on("error", (error) => this.died(worker, error));
    worker.on("exit", (code) => this.died(worker, new Error(`body thread exited (${code})`)));
    this.worker = worker;
    return worker;
  }

  private settle(m: BodyJobResult): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (this.pending.size === 0) {
      if (p.job.bytes.length >= RECYCLE_BYTES) this.recycle();
      else this.worker?.unref();
    }
    if ("result" in m) p.resolve(m.result);
    else p.reject(new Error(`body thread: ${m.failed}`));
  }

  /**
   * After a huge body, the idle thread is ended and the next large body starts a new one. Its heap
   * held the body twice (the decoded text and the parsed object, ~2× the bytes), and V8 keeps an
   * idle thread's garbage and pages: a relay worker stayed ~120 MB heavier after each 60 MB body,
   * and the next one's peak stacked on top (issue 20.4). Ending the thread returns all of it at
   * once; starting one costs milliseconds, beside the seconds such a body takes to arrive.
   */
  private recycle(): void {
    const worker = this.worker;
    if (!worker) return;
    this.worker = null; // its exit is not a death (died() ignores a thread that is not current)
    worker.terminate().catch(() => undefined);
  }

  /** The thread is gone: what it held is read here, and the next large body starts a new one. */
  private died(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = null;
    this.deaths++;
    log.error({ err: error, onEventLoop: this.deaths >= MAX_DEATHS }, "body thread stopped");
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) {
      try {
        p.resolve(summariseJsonBody(p.job.bytes, p.job.mode, p.job.defaultModel, p.job.sensitiveWords));
      } catch (e) {
        p.reject(e as Error);
      }
    }
  }
}

/** How many nice steps body-worker.ts puts its thread below the process (19 is the lowest priority). */
export const BODY_THREAD_NICE = 10;

/** The body thread's nice value in a process at `processNice`. */
export const bodyThreadNice = (processNice: number) => Math.min(19, processNice + BODY_THREAD_NICE);

/** A body of this size or more ends the thread once it is read (BodyThread.recycle). */
export const RECYCLE_BYTES = 8 * 1024 * 1024;

/** Threads that may die before bodies are read on the event loop for good. */
export const MAX_DEATHS = 3;

/** The bytes in shared memory: as they are when they already sit there, else one copy. */
function shared(bytes: Uint8Array): Uint8Array {
  if (bytes.buffer instanceof SharedArrayBuffer) return bytes;
  const out = new Uint8Array(new SharedArrayBuffer(bytes.length));
  out.set(bytes);
  return out;
}

let thread: BodyThread | null = null;

/** summariseJsonBody, done in the relay process's body thread. */
export function summariseJsonBodyOffLoop(
  bytes: Uint8Array,
  mode: RelayMode,
  defaultModel: string,
  sensitiveWords: string | null = null,
): Promise<BodySummaryResult> {
  return (thread ??= new BodyThread()).summarise(bytes, mode, defaultModel, sensitiveWords);
}
