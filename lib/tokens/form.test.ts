import { describe, expect, it } from "vitest";
import { buildTokenBody, parseExpiry, TOKEN_FORM_MSG, type TokenFormValues } from "@/lib/tokens/form";
import { batchNames, randomSuffix } from "@/lib/tokens/batch";
import { fillChatLink } from "@/lib/ui/menu";

const values = (over: Partial<TokenFormValues> = {}): TokenFormValues => ({
  name: " key ",
  expiry: "",
  remain_quota: "500000",
  unlimited_quota: false,
  model_limits_enabled: true,
  model_limits: ["gpt-4o", "gpt-4o-mini"],
  allow_ips: "10.0.0.1\n10.0.0.0/8",
  group: "",
  count: 1,
  rpm_limit: 0,
  tpm_limit: "",
  concurrency_limit: 0,
  budget_quota: 0,
  budget_period: "",
  ...over,
});

describe("token form (spec §5)", () => {
  it("reads never, a date-time text and garbage", () => {
    expect(parseExpiry("")).toBe(-1);
    expect(parseExpiry("-1")).toBe(-1);
    expect(parseExpiry("2030-01-02 03:04:05")).toBe(Math.ceil(new Date(2030, 0, 2, 3, 4, 5).getTime() / 1000));
    expect(parseExpiry("2030-01-02T03:04:05Z")).toBe(1893553445);
    expect(parseExpiry("明天")).toBeNull();
  });

  it("refuses a bad expiry with the spec's text and sends nothing", () => {
    expect(buildTokenBody(values({ expiry: "abc" }), "create")).toEqual({
      ok: false,
      field: "expiry",
      message: TOKEN_FORM_MSG.expiryFormat,
    });
    expect(TOKEN_FORM_MSG.expiryFormat).toBe("过期时间格式错误！");
  });

  it("parses the quota as an integer and joins the model limits", () => {
    const built = buildTokenBody(values({ remain_quota: "1234.9" }), "edit");
    expect(built).toEqual({
      ok: true,
      body: {
        name: "key",
        remain_quota: 1234,
        expired_time: -1,
        unlimited_quota: false,
        model_limits_enabled: true,
        model_limits: "gpt-4o,gpt-4o-mini",
        allow_ips: "10.0.0.1\n10.0.0.0/8",
        group: "",
        rpm_limit: 0,
        tpm_limit: 0,
        concurrency_limit: 0,
        budget_quota: 0,
        budget_period: "",
      },
      count: 1,
    });
  });

  it("asks for a batch as one body and a count, named key, key-xxxxxx, key-yyyyyy by the server", () => {
    const built = buildTokenBody(values({ count: "3" }), "create");
    expect(built.ok && { name: built.body.name, count: built.count }).toEqual({ name: "key", count: 3 });
    let n = 0;
    expect(batchNames("key", 3, () => `s${++n}aaaa`)).toEqual(["key", "key-s1aaaa", "key-s2aaaa"]);
  });

  it("wants a positive whole batch count", () => {
    for (const count of [0, -1, 1.5, "x", 101]) {
      expect(buildTokenBody(values({ count }), "create")).toEqual({ ok: false, field: "count", message: TOKEN_FORM_MSG.countInvalid });
    }
  });

  it("refuses what the API's schema refuses, on the field it is about, with the API's words", () => {
    expect(buildTokenBody(values({ name: "x".repeat(31) }), "create")).toEqual({
      ok: false,
      field: "name",
      message: "令牌名称过长（最多 30 个字符）",
    });
    expect(buildTokenBody(values({ remain_quota: "-5" }), "edit")).toEqual({
      ok: false,
      field: "remain_quota",
      message: "额度必须是非负整数",
    });
    expect(buildTokenBody(values({ expiry: "2040-01-01 00:00:00" }), "create")).toEqual({
      ok: false,
      field: "expiry",
      message: "过期时间超出范围，最晚为 2038-01-19，长期有效请选择永不过期",
    });
    expect(buildTokenBody(values({ name: " " }), "edit")).toEqual({ ok: false, field: "name", message: "请填写令牌名称" });
  });

  it("sends the key's limits as whole numbers, empty as 0", () => {
    const built = buildTokenBody(
      values({ rpm_limit: "10", tpm_limit: 100000, concurrency_limit: "", budget_quota: "250000", budget_period: "week" }),
      "create",
    );
    expect(built.ok && built.body).toMatchObject({
      rpm_limit: 10,
      tpm_limit: 100000,
      concurrency_limit: 0,
      budget_quota: 250000,
      budget_period: "week",
    });
  });

  it("refuses limits the API refuses, on the limit's field, with the API's words", () => {
    const refused = (over: Partial<TokenFormValues>, mode: "create" | "edit" = "edit") => buildTokenBody(values(over), mode);
    expect(refused({ rpm_limit: -1 })).toEqual({ ok: false, field: "rpm_limit", message: "每分钟请求数必须是 0 到 2147483647 之间的整数" });
    expect(refused({ tpm_limit: "1.5" })).toEqual({
      ok: false,
      field: "tpm_limit",
      message: "每分钟 token 数必须是 0 到 2147483647 之间的整数",
    });
    expect(refused({ concurrency_limit: 2 ** 31 }, "create")).toEqual({
      ok: false,
      field: "concurrency_limit",
      message: "并发请求数必须是 0 到 2147483647 之间的整数",
    });
    expect(refused({ budget_quota: "abc" })).toEqual({ ok: false, field: "budget_quota", message: "周期预算必须是非负整数" });
    expect(refused({ budget_quota: 5000, budget_period: "" })).toEqual({
      ok: false,
      field: "budget_period",
      message: "设置了周期预算，请选择预算周期（每天、每周或每月）",
    });
    expect(refused({ budget_quota: 0, budget_period: "day" }, "create")).toEqual({
      ok: false,
      field: "budget_quota",
      message: "选择了预算周期，请填写大于 0 的周期预算",
    });
    expect(refused({ budget_quota: 5000, budget_period: "year" })).toMatchObject({ ok: false, field: "budget_period" });
  });

  it("makes six-character alphanumeric suffixes", () => {
    for (let i = 0; i < 50; i++) expect(randomSuffix()).toMatch(/^[A-Za-z0-9]{6}$/);
  });

  it("fills chat links with the whole key and the server address", () => {
    expect(fillChatLink("https://chat/?k={key}&u={address}", "abc", "https://qiao.example")).toBe(
      "https://chat/?k=sk-abc&u=https%3A%2F%2Fqiao.example",
    );
    expect(fillChatLink("app://x?token={key}", "sk-abc", "")).toBe("app://x?token=sk-abc");
  });
});
