import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { expectNoSecretsIn } from "@/tests/helpers/secrets";

const require = createRequire(import.meta.url);

export type RelayProcess = { url: string; child: ChildProcess; output: () => string; stop(): Promise<void>; kill(): Promise<void> };

/**
 * Starts tests/fixtures/relay-process.ts with extra environment and waits until it listens.
 * `onMessage`: the child gets an IPC channel to this process, as a relay worker has to its primary.
 */
export async function startRelayProcess(
  env: Record<string, string>,
  onMessage?: (message: unknown, child: ChildProcess) => void,
): Promise<RelayProcess> {
  const child = spawn(process.execPath, ["--import", require.resolve("tsx"), path.resolve("tests/fixtures/relay-process.ts")], {
    env: { ...process.env, ...env, QIAO_TEST_KEEP_ENV: "1" },
    stdio: onMessage ? ["ignore", "pipe", "pipe", "ipc"] : ["ignore", "pipe", "pipe"],
  });
  if (onMessage) child.on("message", (m) => onMessage(m, child));
  let out = "";
  child.stderr!.on("data", (d) => (out += d));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`relay process did not start:\n${out}`)), 60_000);
    child.stdout!.on("data", (d: Buffer) => {
      out += d;
      const m = /READY (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.on("exit", (code) => reject(new Error(`relay process exited (${code}):\n${out}`)));
  });
  const exited = new Promise<void>((r) => child.on("exit", () => r()));
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => out,
    // Either way, the process must not have printed anything shaped like a credential.
    async stop() {
      child.kill("SIGTERM");
      await exited;
      expectNoSecretsIn(out, "the relay process");
    },
    async kill() {
      child.kill("SIGKILL");
      await exited;
      expectNoSecretsIn(out, "the relay process");
    },
  };
}
