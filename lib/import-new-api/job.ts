// The console's import (设置 → 迁移): one run at a time in the console process, started by
// POST /api/import/new-api and watched by polling GET, which answers its progress and, once it
// ends, its report. The run is the CLI's (importNewApi) on the console's own connections. Its
// state lives in this process only: on several instances, poll the one that started it.
import { getDb } from "@/lib/db";
import { getDirectDb, getLogDirectDb } from "@/lib/db/direct";
import { ApiError } from "@/lib/errors";
import { type ImportProgress, importNewApi } from "@/lib/import-new-api/run";
import { reportJson } from "@/lib/import-new-api/report";
import { processSingleton } from "@/lib/singleton";

export type ImportJobState = {
  status: "idle" | "running" | "done" | "failed";
  apply: boolean;
  logs: boolean;
  startedAt: number;
  finishedAt: number;
  progress: ImportProgress | null;
  /** The report (bigints as strings) once the run ended. */
  report: unknown;
  error: string;
};

export const IMPORT_JOB_MSG = { busy: "已有一个导入正在进行，请等待它结束" } as const;

const idle = (): ImportJobState => ({
  status: "idle",
  apply: false,
  logs: false,
  startedAt: 0,
  finishedAt: 0,
  progress: null,
  report: null,
  error: "",
});
const slot = processSingleton<{ state: ImportJobState }>("importNewApiJob", () => ({ state: idle() }));

export const getImportJob = (): ImportJobState => ({ ...slot.state });

/** Starts a dry run or an import in the background; refuses while one runs. */
export function startImportJob(input: { from: string; apply: boolean; logs: boolean }): ImportJobState {
  if (slot.state.status === "running") throw new ApiError(IMPORT_JOB_MSG.busy, 409);
  const state: ImportJobState = { ...idle(), status: "running", apply: input.apply, logs: input.logs, startedAt: Date.now() };
  slot.state = state;
  void (async () => {
    try {
      const [db, direct, logs] = await Promise.all([getDb(), getDirectDb(), getLogDirectDb()]);
      const report = await importNewApi({ db, direct, logs }, { ...input, onProgress: (p) => (state.progress = p) });
      state.report = reportJson(report);
      state.status = "done";
    } catch (error) {
      state.error = error instanceof Error ? error.message : String(error);
      state.status = "failed";
    } finally {
      state.finishedAt = Date.now();
    }
  })();
  // As it is now: the caller answers after other awaits, by which time the run may have moved on.
  return { ...state };
}
