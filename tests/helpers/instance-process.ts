// A second instance in its own process (its own database connections) for race tests: runs a
// fixture under tests/fixtures/ on the test database, which prints "READY" once it has opened the
// database and, on the first line of stdin, makes all its attempts at once and prints
// "RESULT <json>".
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe } from "vitest";
import type { DbKind } from "@/lib/db";
import { createTestDatabase, type TestDatabase } from "@/tests/helpers/databases";

const require = createRequire(import.meta.url);

export type Instance<R> = { ready: Promise<void>; go(): void; results: Promise<R[]>; kill(): void };

/** Starts `fixture` (a path under tests/fixtures/) on `t` with `env` added (its jobs). */
export function startInstance<R>(t: TestDatabase, fixture: string, env: Record<string, string>): Instance<R> {
  const dbEnv = t.kind === "sqlite" ? { SQL_DSN: "", SQLITE_PATH: t.dsn } : { SQL_DSN: t.dsn };
  const child = spawn(process.execPath, ["--import", require.resolve("tsx"), path.resolve("tests/fixtures", fixture)], {
    env: { ...process.env, ...dbEnv, NODE_TYPE: "slave", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  const seen = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      child.stdout!.on("data", (d: Buffer) => {
        out += d;
        const m = pattern.exec(out);
        if (m) resolve(m);
      });
      void exited.then((code) => reject(new Error(`${fixture} exited (${code}):\n${out}`)));
    });
  const ready = seen(/^READY$/m).then(() => undefined);
  const results = seen(/^RESULT (.*)$/m).then((m) => JSON.parse(m[1]!) as R[]);
  return { ready, results, go: () => child.stdin!.write("go\n"), kill: () => child.kill("SIGKILL") };
}

/** Waits until every instance is ready, starts them all at once, and answers all their results. */
export async function race<R>(instances: Instance<R>[]): Promise<R[]> {
  await Promise.all(instances.map((i) => i.ready));
  for (const i of instances) i.go();
  return (await Promise.all(instances.map((i) => i.results))).flat();
}

export type RaceDatabase = {
  kind: DbKind;
  /** The block's test database (set before its tests run). */
  t: () => TestDatabase;
  /** startInstance on the block's database; killed when the block ends. */
  start: <R>(fixture: string, env: Record<string, string>) => Instance<R>;
};

/**
 * One describe block per database the race tests cover (SQLite, PostgreSQL, MariaDB), each on a
 * fresh test database that is dropped, with the instances it started killed, when the block ends.
 */
export function describeOnEveryDatabase(title: (kind: DbKind) => string, body: (db: RaceDatabase) => void): void {
  for (const kind of ["sqlite", "postgresql", "mysql"] as DbKind[]) {
    describe(title(kind), () => {
      let t: TestDatabase | undefined;
      const started: Instance<unknown>[] = [];
      beforeAll(async () => {
        t = await createTestDatabase(kind);
      });
      afterAll(async () => {
        for (const i of started) i.kill();
        await t?.drop();
      });
      const db = () => {
        if (!t) throw new Error("the test database is not open yet");
        return t;
      };
      body({
        kind,
        t: db,
        start: <R>(fixture: string, env: Record<string, string>) => {
          const instance = startInstance<R>(db(), fixture, env);
          started.push(instance);
          return instance;
        },
      });
    });
  }
}
