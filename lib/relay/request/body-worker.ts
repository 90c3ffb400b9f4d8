// The thread that reads large JSON request bodies (body-thread.ts starts it): one body at a time,
// summarised (request-body.ts) and posted back. Nothing in it touches the network or the database.
//
// The thread runs at a lower priority (10 nice steps below the process, at most 19; on Linux a
// thread's nice value is its own): when the cores are busy, the event loops answering ordinary
// requests go first and a flood of huge bodies waits, instead of the other way round. Counted
// from the process's own value, so a server started niced still has its body thread below it.
import { getPriority, setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { bodyThreadNice, type BodyJob, type BodyJobResult } from "./body-thread";
import { summariseJsonBody } from "./request-body";

try {
  setPriority(bodyThreadNice(getPriority()));
} catch {
  // Not allowed here (some containers): the thread runs at the process's priority.
}

parentPort!.on("message", (job: BodyJob) => {
  let out: BodyJobResult;
  try {
    out = { id: job.id, result: summariseJsonBody(job.bytes, job.mode, job.defaultModel, job.sensitiveWords) };
  } catch (error) {
    out = { id: job.id, failed: String((error as Error)?.stack ?? error) };
  }
  parentPort!.postMessage(out);
});
