// A second, short-lived `npm start` server on its own fresh SQLite database, for a spec that must
// change state every other spec relies on (root's password), or that needs an environment of its
// own (`env`: provider base URLs pointing at mocks). It reuses the build the main e2e server made.
// QIAO_E2E_PRIVATE_PORT fixes its port; otherwise the system picks a free one.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { E2E_SESSION_SECRET } from "./env";

export type PrivateServer = { baseURL: string; dataDir: string; stop: () => Promise<void> };

const START_TIMEOUT_MS = 90_000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function waitUntilUp(baseURL: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the private server exited (${child.exitCode}):\n${output()}`);
    try {
      if ((await fetch(`${baseURL}/api/status`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the private server did not start within ${START_TIMEOUT_MS} ms:\n${output()}`);
}

/** `env` adds to (or overrides) the server's environment, e.g. a provider's address pointed at a mock. */
export async function startPrivateServer(env: Record<string, string> = {}): Promise<PrivateServer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "qiao-e2e-private-"));
  const port = Number(process.env.QIAO_E2E_PRIVATE_PORT) || (await freePort());
  const baseURL = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ["scripts/start.mjs"], {
    cwd: process.cwd(),
    // Its own process group, so stopping it ends the server's workers too.
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      SQLITE_PATH: path.join(dataDir, "qiao.db"),
      SQL_DSN: "",
      REDIS_CONN_STRING: "",
      SESSION_SECRET: E2E_SESSION_SECRET,
      RELAY_WORKERS: "1",
      CRITICAL_RATE_LIMIT: "1000",
      LOGIN_FAILURE_LIMIT: "1000",
      NEXT_TELEMETRY_DISABLED: "1",
      ...env,
    },
  });
  let log = "";
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.pid) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
      const killed = setTimeout(() => {
        try {
          if (child.pid) process.kill(-child.pid, "SIGKILL");
        } catch {
          // gone meanwhile
        }
      }, 15_000);
      await exited;
      clearTimeout(killed);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitUntilUp(baseURL, child, () => log);
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseURL, dataDir, stop };
}
