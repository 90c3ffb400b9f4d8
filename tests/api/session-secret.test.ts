// A SESSION_SECRET shorter than 32 characters stops the start with a clear message; the test and
// browser-test setups use long enough ones.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { E2E_SESSION_SECRET } from "@/tests/e2e/env";

const require = createRequire(import.meta.url);

/** Loads lib/env.ts in a fresh process, as every process of `npm start` does first. */
function startWith(secret: string) {
  return spawnSync(process.execPath, ["--import", require.resolve("tsx"), "--input-type=module", "-e", 'await import("./lib/env.ts")'], {
    env: { ...process.env, SESSION_SECRET: secret, QIAO_TEST_KEEP_ENV: "1" },
    encoding: "utf8",
    timeout: 60_000,
  });
}

describe("SESSION_SECRET", () => {
  it("is refused below 32 characters, with the rule in the message", () => {
    const short = startWith("x".repeat(31));
    expect(short.status).not.toBe(0);
    expect(short.stderr).toContain("SESSION_SECRET: must be at least 32 characters");
  });

  it("is accepted at 32 characters", () => {
    const enough = startWith("x".repeat(32));
    expect(enough.stderr).toBe("");
    expect(enough.status).toBe(0);
  });

  it("is long enough in the test and browser-test setups", () => {
    expect(process.env.SESSION_SECRET!.length).toBeGreaterThanOrEqual(32);
    expect(E2E_SESSION_SECRET.length).toBeGreaterThanOrEqual(32);
  });
});
