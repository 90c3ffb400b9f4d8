// The console's import (设置 → 迁移) through its route, POST/GET /api/import/new-api: root only; a
// dry run and then the import run in the background and are polled to their report; a second
// start while one runs is refused (lib/import-new-api/job.ts); the import is in the audit trail
// (the DSN, which may hold a password, is not).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as importRoute from "@/app/api/import/new-api/route";
import { getDb } from "@/lib/db";
import { hashTokenKey } from "@/lib/tokens/keys";
import { getImportJob, IMPORT_JOB_MSG, startImportJob } from "@/lib/import-new-api/job";
import { ApiError } from "@/lib/errors";
import { buildNewApiFixture, type NewApiFixture } from "@/tests/fixtures/new-api/build";
import { call, createUser, sessionCookieFor } from "@/tests/helpers/api";

type Job = {
  status: string;
  apply: boolean;
  report: {
    applied: boolean;
    tables: { table: string; rows: number; imported: number; already: number }[];
    sums: Record<string, { equal: boolean | null }>;
  } | null;
  error: string;
};

describe("POST/GET /api/import/new-api", () => {
  let f: NewApiFixture;
  let root: { id: number; cookie: string };
  beforeAll(async () => {
    f = await buildNewApiFixture("sqlite", "new-api-v0.3", { logs: 30 });
    const db = await getDb();
    const row = await db.user.findUniqueOrThrow({ where: { username: "root" } });
    root = { id: row.id, cookie: await sessionCookieFor(row.id) };
  });
  afterAll(async () => {
    await f?.drop();
  });

  /** Waits for the run to end, then reads it through the route (root's session is made afterwards:
   * an import that takes root over ends root's older sessions). */
  const finished = async (): Promise<Job> => {
    while (getImportJob().status === "running") await new Promise((r) => setTimeout(r, 50));
    const res = await call(importRoute.GET, "GET", "/api/import/new-api", { as: { id: root.id, cookie: await sessionCookieFor(root.id) } });
    expect(res.json.success).toBe(true);
    return res.json.data as Job;
  };

  it("refuses an admin below root", async () => {
    const admin = await createUser({ username: "imp_admin", role: 10 });
    const res = await call(importRoute.POST, "POST", "/api/import/new-api", { as: admin, body: { from: f.from } });
    expect(res.json.success).toBe(false);
    expect(res.status).toBe(403);
  });

  it("refuses a source that is not there, in the report's words", async () => {
    await call(importRoute.POST, "POST", "/api/import/new-api", { as: root, body: { from: "/nowhere/one-api.db" } });
    expect(await finished()).toMatchObject({ status: "failed", error: "源数据库文件不存在：/nowhere/one-api.db" });
  });

  it("runs the dry run, then the import, each polled to its report", async () => {
    const db = await getDb();
    const usersBefore = await db.user.count();
    const dry = startImportJob({ from: f.from, apply: false, logs: true });
    expect(dry).toMatchObject({ status: "running", apply: false });
    // While one runs (no await since it started), another start is refused.
    expect(() => startImportJob({ from: f.from, apply: false, logs: false })).toThrow(new ApiError(IMPORT_JOB_MSG.busy, 409));
    const dryJob = await finished();
    expect(dryJob.status).toBe("done");
    expect(dryJob.report!.applied).toBe(false);
    expect(dryJob.report!.tables.find((t) => t.table === "tokens")).toMatchObject({ rows: f.counts.tokens, imported: f.counts.tokens });
    expect(await db.user.count()).toBe(usersBefore);

    const started = await call(importRoute.POST, "POST", "/api/import/new-api", {
      as: root,
      body: { from: f.from, apply: true, logs: true },
    });
    expect(started.json).toMatchObject({ success: true, data: { status: "running", apply: true } });
    const job = await finished();
    expect(job.status).toBe("done");
    for (const s of Object.values(job.report!.sums)) expect(s.equal).toBe(true);
    // This database's root is still root / 123456: the source's root took it over.
    expect(job.report!.tables.find((t) => t.table === "users")!.imported).toBe(f.counts.users);
    expect(await db.user.count()).toBe(usersBefore + f.counts.users - 1);
    expect(await db.token.count({ where: { key_hash: hashTokenKey(f.known.tokenKey) } })).toBe(1);
    const audit = await db.auditLog.findFirstOrThrow({ where: { action: "import.new_api" } });
    expect(audit.actor_id).toBe(root.id);
    expect(audit.detail).not.toContain(f.from);
  });
});
