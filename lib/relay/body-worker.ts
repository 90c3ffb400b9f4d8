// The thread that reads large JSON request bodies (body-thread.ts starts it): one body at a time,
// summarised (request-body.ts) and posted back. Nothing in it touches the network or the database.
import { parentPort } from "node:worker_threads";
import type { BodyJob, BodyJobResult } from "./body-thread";
import { summariseJsonBody } from "./request-body";

parentPort!.on("message", (job: BodyJob) => {
  let out: BodyJobResult;
  try {
    out = { id: job.id, result: summariseJsonBody(job.bytes, job.mode, job.defaultModel, job.sensitiveWords) };
  } catch (error) {
    out = { id: job.id, failed: String((error as Error)?.stack ?? error) };
  }
  parentPort!.postMessage(out);
});
