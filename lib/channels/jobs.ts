// Long channel jobs (test all, update all balances) run in the background of the console process:
// the request that starts one returns at once with the job's record, and the page polls
// `GET /api/channel/jobs` for its progress. One run of each kind at a time per process; the record
// of the last run stays until the next one starts. Every step awaits network I/O, so a run never
// holds the event loop.
import { processSingleton } from "@/lib/singleton";
import { componentLogger } from "@/lib/log";

const log = componentLogger("channels");

export type ChannelJobKind = "test" | "balance";

export type ChannelJob = {
  kind: ChannelJobKind;
  /** True until the last channel is done. */
  running: boolean;
  /** Unix seconds. */
  started_at: number;
  /** Unix seconds; 0 while running. */
  finished_at: number;
  /** Channels the run covers, known when it starts. */
  total: number;
  /** Channels finished so far (succeeded + failed). */
  done: number;
  succeeded: number;
  failed: number;
  /** Channels the run disabled (status 3) and re-enabled. */
  disabled: number;
  enabled: number;
  /** Why channels failed, in run order (the first MAX_FAILURES). */
  failures: ChannelJobFailure[];
};

export type ChannelJobFailure = { channel_id: number; message: string };

const MAX_FAILURES = 100;

/** What one step reports about its channel. */
export type StepOutcome = { ok: boolean; message?: string; disabled?: boolean; enabled?: boolean };

type Runs = Record<ChannelJobKind, { job: ChannelJob | null; done: Promise<void> }>;
const runs = processSingleton<Runs>("channelJobs", () => ({
  test: { job: null, done: Promise.resolve() },
  balance: { job: null, done: Promise.resolve() },
}));

const now = () => Math.floor(Date.now() / 1000);

/** A copy of the job's record, so callers never see it change under them. */
const snapshot = (job: ChannelJob | null): ChannelJob | null => (job ? { ...job, failures: [...job.failures] } : null);

/** The current or last run of each kind (null: none since the process started). */
export function getChannelJobs(): Record<ChannelJobKind, ChannelJob | null> {
  return { test: snapshot(runs.test.job), balance: snapshot(runs.balance.job) };
}

/**
 * Starts a run over the items `load` returns, calling `step` for each in turn. Returns the new
 * run's record (`started: true`), or the record of the run already going (`started: false`).
 * A step that throws counts as failed; the run goes on.
 */
export async function startChannelJob<T extends { id: number }>(
  kind: ChannelJobKind,
  load: () => Promise<T[]>,
  step: (item: T) => Promise<StepOutcome>,
): Promise<{ started: boolean; job: ChannelJob }> {
  const run = runs[kind];
  if (run.job?.running) return { started: false, job: snapshot(run.job)! };
  const job: ChannelJob = {
    kind,
    running: true,
    started_at: now(),
    finished_at: 0,
    total: 0,
    done: 0,
    succeeded: 0,
    failed: 0,
    disabled: 0,
    enabled: 0,
    failures: [],
  };
  run.job = job;
  let items: T[];
  try {
    items = await load();
  } catch (error) {
    job.running = false;
    job.finished_at = now();
    throw error;
  }
  job.total = items.length;
  run.done = (async () => {
    for (const item of items) {
      const outcome = await step(item).catch((error: unknown): StepOutcome => {
        if (!(error instanceof Error)) log.error({ err: error, job: kind, channelId: item.id }, "channel job step failed");
        return { ok: false, message: error instanceof Error ? error.message : String(error) };
      });
      job.done++;
      if (outcome.ok) job.succeeded++;
      else {
        job.failed++;
        if (job.failures.length < MAX_FAILURES) job.failures.push({ channel_id: item.id, message: outcome.message ?? "" });
      }
      if (outcome.disabled) job.disabled++;
      if (outcome.enabled) job.enabled++;
    }
  })().finally(() => {
    job.running = false;
    job.finished_at = now();
  });
  return { started: true, job: snapshot(job)! };
}

/** Resolves when the current run of `kind` ends (at once when none is running). */
export const channelJobDone = (kind: ChannelJobKind) => runs[kind].done;
