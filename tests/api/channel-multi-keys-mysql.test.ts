// The multi-key channel API's cases (channel-multi-keys.cases.ts) with the whole process on
// MariaDB: SQL_DSN names a throwaway database created before any module reads the environment.
import { afterAll, expect, it, vi } from "vitest";
import { dbKind } from "@/lib/db/kind";
import { multiKeyApiCases } from "@/tests/api/channel-multi-keys.cases";

const database = await vi.hoisted(async () => {
  const { execFileSync } = await import("node:child_process");
  const name = `qiao_t_mk_${Date.now().toString(36)}`;
  const mysql = (sql: string) => execFileSync("mysql", ["-h", "127.0.0.1", "-u", "root", "-e", sql]);
  mysql(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  process.env.SQL_DSN = `mysql://root@127.0.0.1:3306/${name}`;
  return { drop: () => mysql(`DROP DATABASE IF EXISTS ${name}`) };
});

afterAll(() => {
  database.drop();
});

it("runs on MariaDB", () => {
  expect(dbKind).toBe("mysql");
});

multiKeyApiCases("mysql");
