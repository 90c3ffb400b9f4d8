import { describe, expect, it } from "vitest";
import { consoleEnv, relayWorkerEnv } from "@/lib/server/primary";

describe("relayWorkerEnv", () => {
  it("gives relay workers two malloc arenas and a fixed 128 KiB mmap threshold", () => {
    const env = relayWorkerEnv({ PATH: "/usr/bin" });
    expect(env.MALLOC_ARENA_MAX).toBe("2");
    expect(env.MALLOC_MMAP_THRESHOLD_).toBe("131072");
    expect(env.PATH).toBe("/usr/bin");
  });

  it("lets the operator's own malloc settings win", () => {
    const env = relayWorkerEnv({ MALLOC_ARENA_MAX: "4", MALLOC_MMAP_THRESHOLD_: "1048576" });
    expect(env.MALLOC_ARENA_MAX).toBe("4");
    expect(env.MALLOC_MMAP_THRESHOLD_).toBe("1048576");
  });
});

describe("consoleEnv", () => {
  it("gives the console the fixed mmap threshold, under the operator's own setting", () => {
    expect(consoleEnv({ PATH: "/usr/bin" })).toEqual({ PATH: "/usr/bin", MALLOC_MMAP_THRESHOLD_: "131072" });
    expect(consoleEnv({ MALLOC_MMAP_THRESHOLD_: "1048576" }).MALLOC_MMAP_THRESHOLD_).toBe("1048576");
  });
});
