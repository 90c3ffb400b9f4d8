import { describe, expect, it } from "vitest";
import { progressOf, storedData } from "@/lib/tasks/suno/poll";
import type { OpenTask } from "@/lib/tasks/types";

const task = (o: Partial<OpenTask> = {}): OpenTask => ({
  id: 7,
  vendorId: "v1",
  channelId: 1,
  userId: 1,
  action: "MUSIC",
  status: "NOT_START",
  progress: "0%",
  submitTime: 1_700_000_000_000,
  properties: "",
  data: "",
  ...o,
});

describe("what a Suno fetch item means for its row", () => {
  it("reads Suno-API's unix seconds as milliseconds, and keeps a proxy's milliseconds", () => {
    expect(progressOf(task(), { task_id: "v1", status: "IN_PROGRESS", start_time: 1_700_000_100 })).toMatchObject({
      status: "IN_PROGRESS",
      startTime: 1_700_000_100_000,
    });
    expect(progressOf(task(), { task_id: "v1", status: "SUCCESS", finish_time: 1_700_000_200_123 })).toMatchObject({
      finishTime: 1_700_000_200_123,
    });
  });

  it("a fail_reason on an unfinished task is a failure (new-api refunds it); on a success it is not", () => {
    expect(progressOf(task(), { task_id: "v1", status: "IN_PROGRESS", fail_reason: "moderated" })).toMatchObject({
      status: "FAILURE",
      failReason: "moderated",
    });
    const done = progressOf(task(), { task_id: "v1", status: "SUCCESS", fail_reason: "one clip was shorter" });
    expect(done).toMatchObject({ status: "SUCCESS" });
    expect(done).not.toHaveProperty("failReason");
  });

  it("a failure's reason is masked like any upstream text users read", () => {
    const failed = progressOf(task(), { task_id: "v1", status: "FAILURE", fail_reason: "POST https://10.0.0.5/api/generate failed" });
    expect(failed!.failReason).not.toContain("10.0.0.5");
  });

  it("statuses in another case are read, unknown ones are UNKNOWN, a missing one keeps the row's", () => {
    expect(progressOf(task(), { task_id: "v1", status: "queued" })).toMatchObject({ status: "QUEUED" });
    expect(progressOf(task(), { task_id: "v1", status: "streaming" })).toMatchObject({ status: "UNKNOWN" });
    expect(progressOf(task({ status: "SUBMITTED" }), { task_id: "v1", progress: 30 })).toEqual({
      id: 7,
      status: "SUBMITTED",
      progress: "30%",
    });
  });

  it("an item that changes nothing writes nothing", () => {
    const data = storedData([{ id: "c1", status: "streaming" }])!;
    expect(
      progressOf(task({ status: "IN_PROGRESS", progress: "50%", data }), {
        task_id: "v1",
        status: "IN_PROGRESS",
        progress: "50%",
        data: [{ id: "c1", status: "streaming" }],
      }),
    ).toBeNull();
  });

  it("clips too large for the data column keep their links, not their metadata", () => {
    const clips = [{ id: "c1", audio_url: "https://cdn1.suno.ai/c1.mp3", metadata: { prompt: "x".repeat(70_000) } }];
    expect(JSON.parse(storedData(clips)!)).toEqual([{ id: "c1", audio_url: "https://cdn1.suno.ai/c1.mp3" }]);
    expect(storedData({ text: "x".repeat(70_000) })).toBeUndefined();
  });
});
