// A real `npm start` (scripts/start.mjs, which builds first when the sources changed since the
// last build) on a test database, in its own process group, for the tests that need the whole
// server: the primary, its console and its relay workers.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { TestDatabase } from "@/tests/helpers/databases";
import { expectNoSecretsIn } from "@/tests/helpers/secrets";

/** A TCP port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export type Server = { url: string; child: ChildProcess; exited: Promise<number | null>; output: () => string };

/** Where `t` is, as the server's environment says it. */
function databaseEnv(t: TestDatabase): Record<string, string> {
  if (t.kind === "sqlite") return { DATA_DIR: path.dirname(t.dsn), SQLITE_PATH: t.dsn, SQL_DSN: "" };
  return { DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "qiao-instance-")), SQL_DSN: t.dsn };
}

/**
 * `node scripts/start.mjs` on `t` with `env` over the defaults (one relay worker, no Redis, no
 * metrics token); resolves once /healthz answers. Start servers one after another: the first
 * builds when it has to, the next ones find the build.
 */
export async function startServer(t: TestDatabase, env: Record<string, string>): Promise<Server> {
  // A test given a range of ports names its own in env.PORT.
  const port = Number(env.PORT) || (await freePort());
  const url = `http://127.0.0.1:${port}`;
  // Another server on a port a test named would answer for this one (and a test of another run
  // would talk to it): refuse rather than test the wrong server.
  if (
    await fetch(`${url}/healthz`).then(
      () => true,
      () => false,
    )
  )
    throw new Error(`port ${port} is taken by another server`);
  const child = spawn(process.execPath, [path.resolve("scripts/start.mjs")], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      ...databaseEnv(t),
      REDIS_CONN_STRING: "",
      METRICS_TOKEN: "",
      RELAY_WORKERS: "1",
      NEXT_TELEMETRY_DISABLED: "1",
      ...env,
    },
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${out}`);
    const up = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, child, exited, output: () => out };
}

/**
 * Kills what is left of the server's process group (a test that failed half-way, or the end),
 * waits for it, and fails when the server printed anything shaped like a credential.
 */
export async function killServer(s: Server | undefined): Promise<void> {
  if (!s?.child.pid) return;
  try {
    process.kill(-s.child.pid, "SIGKILL");
  } catch {
    // gone already
  }
  await s.exited;
  expectNoSecretsIn(s.output(), "the server");
}
