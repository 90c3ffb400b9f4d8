// The server log's lines are gathered before they are written (lib/log.ts): lines logged together
// go out in one write, none while the event loop is busy, and the buffer is written without more
// lines coming (within LOG_FLUSH_MS) and when the process exits.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);

describe("server log writes", () => {
  it("gathers lines into one write, flushes them on a timer and at exit", async () => {
    const child = spawn(process.execPath, ["--import", require.resolve("tsx"), path.resolve("tests/fixtures/log-writer.ts")], {
      env: { ...process.env, LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const chunks: string[] = [];
    let stdoutAtLogged: number | null = null;
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => chunks.push(d.toString()));
    child.stderr.on("data", (d: Buffer) => {
      stderr += d;
      if (stdoutAtLogged === null && stderr.includes("LOGGED")) stdoutAtLogged = chunks.length;
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(code, stderr).toBe(0);

    // Nothing was written while the loop was held after the 20 lines were logged.
    expect(stdoutAtLogged).toBe(0);
    // The 20 lines came in one write, before the last line (the timer wrote them, no new line did).
    const first = chunks[0]!.trimEnd().split("\n");
    expect(first).toHaveLength(20);
    expect(first.map((l) => (JSON.parse(l) as { i: number }).i)).toEqual([...Array(20).keys()]);
    expect(chunks[0]).not.toContain("last line");
    // The line logged right before process.exit was written on the way out.
    const lines = chunks.join("").trimEnd().split("\n");
    expect(lines).toHaveLength(21);
    expect(JSON.parse(lines[20]!)).toMatchObject({ level: "info", msg: "last line" });
  }, 30_000);
});
