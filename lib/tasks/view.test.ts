import { describe, expect, it } from "vitest";
import {
  drawingActionLook,
  drawingImagePath,
  drawingStatusLook,
  progressPercent,
  spendColor,
  spendSeconds,
  submitCodeLook,
  taskActionLook,
  taskPlatformLook,
  taskStatusLook,
} from "./view";

describe("the labels of spec §4", () => {
  it("names submit codes, statuses, actions and platforms as new-api does, anything else 未知", () => {
    expect([1, 21, 22, 0, 23].map((c) => submitCodeLook(c).label)).toEqual(["已提交", "等待中", "重复提交", "未提交", "未知"]);
    expect(
      ["SUCCESS", "NOT_START", "SUBMITTED", "IN_PROGRESS", "FAILURE", "MODAL", "QUEUED"].map((s) => drawingStatusLook(s).label),
    ).toEqual(["成功", "未启动", "队列中", "执行中", "失败", "窗口等待", "未知"]);
    expect(["QUEUED", "UNKNOWN", "", "MODAL"].map((s) => taskStatusLook(s).label)).toEqual(["排队中", "未知", "提交中", "未知"]);
    expect(["IMAGINE", "CUSTOM_ZOOM", "SWAP_FACE", "toString"].map((a) => drawingActionLook(a).label)).toEqual([
      "绘图",
      "自定义变焦-提交",
      "换脸",
      "未知",
    ]);
    expect(["MUSIC", "LYRICS", "VIDEO"].map((a) => taskActionLook(a).label)).toEqual(["生成音乐", "生成歌词", "生成视频"]);
    expect(["suno", "openai-video", "kling"].map((p) => taskPlatformLook(p).label)).toEqual(["Suno", "视频", "未知"]);
  });
});

describe("progressPercent", () => {
  it("reads the vendor's percentage, clamped; nothing for no progress", () => {
    expect(progressPercent("45%")).toBe(45);
    expect(progressPercent("100%")).toBe(100);
    expect(progressPercent("250")).toBe(100);
    expect(progressPercent("")).toBeNull();
    expect(progressPercent("n/a")).toBeNull();
  });
});

describe("spendSeconds", () => {
  const submit = 1_700_000_000_000;
  it("measures submit to finish, or to now while the task runs, and is red past 60 s", () => {
    expect(spendSeconds({ submit_time: submit, finish_time: submit + 61_250, status: "SUCCESS" }, 0)).toBe(61.3);
    expect(spendSeconds({ submit_time: submit, finish_time: 0, status: "IN_PROGRESS" }, submit + 5_000)).toBe(5);
    expect(spendSeconds({ submit_time: submit, finish_time: 0, status: "" }, submit + 90_000)).toBe(90);
    expect(spendColor(60)).toBe("green");
    expect(spendColor(60.1)).toBe("red");
  });
  it("has nothing to measure for a task that ended without a finish time or was never submitted", () => {
    expect(spendSeconds({ submit_time: submit, finish_time: 0, status: "FAILURE" }, submit + 5_000)).toBeNull();
    expect(spendSeconds({ submit_time: 0, finish_time: 0, status: "IN_PROGRESS" }, submit)).toBeNull();
  });
});

describe("drawingImagePath", () => {
  it("is our proxy's path, the id escaped", () => {
    expect(drawingImagePath("1712345")).toBe("/mj/image/1712345");
    expect(drawingImagePath("a/../b")).toBe("/mj/image/a%2F..%2Fb");
  });
});
