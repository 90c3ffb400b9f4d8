import { readdirSync, readFileSync } from "node:fs";
import { getPriority } from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BodyThread, bodyThreadNice, MAX_DEATHS, RECYCLE_BYTES, summariseJsonBodyOffLoop } from "./body-thread";
import { summariseJsonBody } from "./request-body";
import { loggedLines, spyOnLog } from "@/tests/helpers/log";

/** The server log's "body thread stopped" lines a log spy saw. */
const stopsIn = (logged: ReturnType<typeof spyOnLog>) => loggedLines(logged).filter((l) => l.msg === "body thread stopped");

const body = Buffer.from(JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "a".repeat(2 * 1024 * 1024) }] }));
const onLoop = summariseJsonBody(body, "chat", "");

/** The longest text JSON.parse gets on this thread while `run` runs. */
async function longestParseHere<T>(run: () => Promise<T>): Promise<{ result: T; longest: number }> {
  let longest = 0;
  const parse = JSON.parse;
  const spy = vi.spyOn(JSON, "parse").mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    longest = Math.max(longest, text.length);
    return parse(text, reviver);
  });
  try {
    return { result: await run(), longest };
  } finally {
    spy.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

describe("the body thread", () => {
  it("reads a large body in another thread: the same summary, and the body is never parsed on the event loop", async () => {
    const { result, longest } = await longestParseHere(() => summariseJsonBodyOffLoop(body, "chat", ""));
    expect(result).toEqual(onLoop);
    expect(longest).toBeLessThan(64 * 1024);
    // Shared memory goes over as it is; other bytes are copied once.
    const shared = Buffer.from(new SharedArrayBuffer(body.length));
    body.copy(shared);
    expect(await summariseJsonBodyOffLoop(shared, "chat", "")).toEqual(onLoop);
    const bad = await summariseJsonBodyOffLoop(Buffer.from('{"model":'), "chat", "");
    expect(bad).toMatchObject({ ok: false, error: { status: 400, code: "invalid_json" } });
  });

  it("runs at a lower priority than the event loop (Linux: one more thread of this process 10 nice steps below it)", async () => {
    // The test run itself may be niced (npm test runs vitest at nice 10): count from its value.
    const target = bodyThreadNice(getPriority());
    expect(target).toBeGreaterThan(getPriority());
    // Field 19 of /proc/<pid>/task/<tid>/stat is the thread's nice value (after the ")" of the name).
    const niceThreads = () =>
      readdirSync("/proc/self/task").filter((tid) => {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]) === target;
      }).length;
    const before = niceThreads();
    const thread = new BodyThread();
    expect(await thread.summarise(body, "chat", "")).toEqual(onLoop);
    expect(thread.running).toBe(true);
    expect(niceThreads()).toBe(before + 1);
  });

  it("ends its thread after a huge body, so the worker does not keep the body's heap; the next body starts a new one", async () => {
    const logged = spyOnLog();
    const thread = new BodyThread();
    expect(await thread.summarise(body, "chat", "")).toEqual(onLoop);
    expect(thread.running).toBe(true); // a large body below RECYCLE_BYTES keeps the thread
    const huge = Buffer.from(JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "b".repeat(RECYCLE_BYTES) }] }));
    const result = await thread.summarise(huge, "chat", "");
    expect(result).toMatchObject({ ok: true, summary: { model: "gpt-4o", rulesError: null } });
    expect(thread.running).toBe(false);
    expect(await thread.summarise(body, "chat", "")).toEqual(onLoop);
    expect(thread.running).toBe(true);
    expect(stopsIn(logged)).toEqual([]); // an ended thread is not a death
  });

  it("answers on the event loop when its thread dies, and stops starting threads after MAX_DEATHS", async () => {
    const logged = spyOnLog();
    let started = 0;
    const thread = new BodyThread(() => {
      started++;
      return { code: "process.exit(3)", eval: true };
    });
    for (let i = 0; i < MAX_DEATHS + 2; i++) expect(await thread.summarise(body, "chat", "")).toEqual(onLoop);
    expect(started).toBe(1); // the source is looked up once
    expect(thread.running).toBe(false);
    const stops = stopsIn(logged);
    expect(stops).toHaveLength(MAX_DEATHS);
    expect(stops.at(-1)).toMatchObject({ level: "error", component: "relay", onEventLoop: true });
  });

  it("answers on the event loop when there is no thread to start", async () => {
    const thread = new BodyThread(() => null);
    expect(await thread.summarise(body, "chat", "")).toEqual(onLoop);
    expect(thread.running).toBe(false);
  });

  it("fails the request when the thread fails on a body (a 500, as on the event loop)", async () => {
    const thread = new BodyThread(() => ({
      code: `const { parentPort } = require("node:worker_threads");
        parentPort.on("message", (job) => parentPort.postMessage({ id: job.id, failed: "TypeError: boom" }));`,
      eval: true,
    }));
    await expect(thread.summarise(body, "chat", "")).rejects.toThrow("body thread: TypeError: boom");
    expect(thread.running).toBe(true); // the thread itself is fine
  });
});
