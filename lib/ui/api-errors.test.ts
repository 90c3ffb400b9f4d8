import { describe, expect, it } from "vitest";
import { describeFailure, TEXT } from "@/lib/ui/api-errors";

describe("describeFailure", () => {
  it("turns a 401 into the expired-session redirect", () => {
    expect(describeFailure(401, "未登录且未提供 access token")).toEqual({ kind: "expired" });
  });
  it("shows a 401 as a message where no session was expected (login form)", () => {
    expect(describeFailure(401, "用户名或密码错误", false)).toEqual({ kind: "notify", level: "error", text: "用户名或密码错误" });
    expect(describeFailure(401, null, false)).toMatchObject({ text: TEXT.expired });
  });
  it("uses the spec texts for 429, 500 and 405", () => {
    expect(describeFailure(429, null)).toMatchObject({ text: "请求次数过多，请稍后再试！" });
    expect(describeFailure(500, "stack trace")).toMatchObject({ text: "服务器内部错误，请联系管理员！" });
    expect(describeFailure(405, null)).toEqual({ kind: "notify", level: "info", text: "本站仅作演示之用，无服务端！" });
  });
  it("prefers the envelope message of other refusals", () => {
    expect(describeFailure(403, "管理员关闭了新用户注册")).toMatchObject({ text: "管理员关闭了新用户注册" });
    expect(describeFailure(429, "该账户登录失败次数过多，请稍后再试")).toMatchObject({ text: "该账户登录失败次数过多，请稍后再试" });
    expect(describeFailure(200, "余额不足")).toMatchObject({ text: "余额不足" });
  });
  it("prefixes bare HTTP errors with 错误：", () => {
    expect(describeFailure(502, null)).toMatchObject({ text: "错误：HTTP 502" });
    expect(describeFailure(0, null)).toMatchObject({ text: "无法正常连接至服务器！" });
  });
});
