import { describe, expect, it } from "vitest";
import { changedOptions } from "@/lib/client/options";
import { cleanupTimestamp, defaultCleanupTime, OPERATION_KEYS, operationValues } from "@/lib/options/operation";
import { formError, INVALID_JSON_MESSAGE, isOptionKey, isSecretOption } from "@/lib/options/registry";

// The tab checks a value with the registry's parser (formError), as the server will.
const checkOperationValue = formError;

describe("the operation tab's options", () => {
  it("are known, non-secret options", () => {
    for (const key of OPERATION_KEYS) {
      expect(isOptionKey(key), key).toBe(true);
      expect(isSecretOption(key as never), key).toBe(false);
    }
  });

  it("are picked from the option list, nothing else", () => {
    const values = operationValues([
      { key: "TopUpLink", value: "https://a" },
      { key: "Notice", value: "x" },
    ]);
    expect(values).toEqual({ TopUpLink: "https://a" });
  });

  it("Chats must be JSON (the spec's text) and a list of one-name objects", () => {
    expect(checkOperationValue("Chats", "[{")).toBe(INVALID_JSON_MESSAGE);
    expect(checkOperationValue("Chats", '{"a": "b"}')).toMatch(/JSON 数组/);
    expect(checkOperationValue("Chats", '[{"a": "b", "c": "d"}]')).toMatch(/JSON 数组/);
    expect(checkOperationValue("Chats", '[{"a": 1}]')).toMatch(/JSON 数组/);
    expect(checkOperationValue("Chats", '[{"Next": "https://x/{key}"}]')).toBeNull();
  });

  it("ModelRequestRateLimitGroup must be JSON naming [requests ≥ 0, successes ≥ 1] per group", () => {
    expect(checkOperationValue("ModelRequestRateLimitGroup", "{")).toBe(INVALID_JSON_MESSAGE);
    for (const bad of ['{"vip": [1]}', '{"vip": [-1, 5]}', '{"vip": [1, 0]}', '{"vip": [1.5, 2]}', "[]", '{" ": [1, 1]}'])
      expect(checkOperationValue("ModelRequestRateLimitGroup", bad), bad).toMatch(/分组速率限制/);
    expect(checkOperationValue("ModelRequestRateLimitGroup", '{"default": [200, 100], "vip": [0, 1000]}')).toBeNull();
    expect(checkOperationValue("ModelRequestRateLimitGroup", "{}")).toBeNull();
    expect(checkOperationValue("ModelRequestRateLimitDurationMinutes", "0")).not.toBeNull();
  });

  it("numbers: interval at least 1 minute, counts whole and not negative, QuotaPerUnit positive", () => {
    expect(checkOperationValue("DataExportInterval", "0")).toBe("数据看板更新间隔不能小于 1 分钟");
    expect(checkOperationValue("DataExportInterval", "1")).toBeNull();
    expect(checkOperationValue("RetryTimes", "1.5")).not.toBeNull();
    expect(checkOperationValue("QuotaForNewUser", "")).not.toBeNull();
    expect(checkOperationValue("QuotaPerUnit", "0")).not.toBeNull();
    expect(checkOperationValue("QuotaPerUnit", "7.3")).toBeNull();
    expect(checkOperationValue("ChannelDisableThreshold", "2.5")).toBeNull();
    expect(checkOperationValue("TopUpLink", "")).toBeNull();
  });

  it("finds the changed options of a section, in its order", () => {
    expect(changedOptions({ A: "1", B: "2", C: "" }, { A: "1", B: "3", C: "x" })).toEqual({ B: "2", C: "" });
  });

  it("log cleanup: one month ago by default; an empty time is no time", () => {
    expect(defaultCleanupTime(new Date(2026, 2, 15, 8, 5))).toBe("2026-02-15T08:05");
    expect(cleanupTimestamp("")).toBeNull();
    expect(cleanupTimestamp("2001-09-09T01:46")).toBe(Math.floor(new Date(2001, 8, 9, 1, 46).getTime() / 1000));
  });
});
