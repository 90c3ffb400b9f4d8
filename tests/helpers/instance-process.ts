// A second instance in its own process (its own database connections) for race tests: runs a
// fixture under tests/fixtures/ on the test database, which prints "READY" once it has opened the
// database and, on the first line of stdin, makes all its attempts at once and prints
// "RESULT <json>".
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import type { TestDatabase } from "@/tests/helpers/databases";

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
