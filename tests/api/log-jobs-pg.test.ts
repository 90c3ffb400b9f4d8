// The log's CSV export, retention job and cleanup progress with the whole process on PostgreSQL:
// SQL_DSN names a throwaway database created before any module reads the environment.
// @main-database none (it names its PostgreSQL database itself; scripts/database-tests.mjs).
import { afterAll, expect, it, vi } from "vitest";
import { dbKind } from "@/lib/db/kind";
import { logJobCases } from "@/tests/api/log-jobs.cases";

const database = await vi.hoisted(async () => {
  const { execFileSync } = await import("node:child_process");
  const name = `qiao_t_logs_${Date.now().toString(36)}`;
  const psql = (sql: string) => execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-qc", sql]);
  psql(`CREATE DATABASE ${name}`);
  process.env.SQL_DSN = `postgres://postgres@127.0.0.1:5432/${name}`;
  return { drop: () => psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
});

afterAll(() => {
  database.drop();
});

it("runs on PostgreSQL", () => {
  expect(dbKind).toBe("postgresql");
});

logJobCases("postgresql");
