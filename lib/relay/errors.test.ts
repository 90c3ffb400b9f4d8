import { describe, expect, it } from "vitest";
import { parseStatusCodeMapping, parseModelMapping, resolveUpstreamModel, toChannelConfig } from "./memory/channel";
import {
  applyStatusCodeMapping,
  describeUpstreamNetworkError,
  newRequestId,
  openAIError,
  parseUpstreamError,
  shouldDisableChannel,
  shouldRetry,
  isOverloaded,
  noChannelError,
} from "./errors";
import { retryAfterSeconds } from "./call/upstream-failure";

describe("openAIError", () => {
  it("builds OpenAI's error shape with the request id appended", () => {
    expect(
      openAIError(
        404,
        "当前分组 default 下对于模型 x 无可用渠道",
        "invalid_request_error",
        "model_not_found",
        null,
        "20241204153012abcd123456",
      ),
    ).toEqual({
      status: 404,
      body: {
        error: {
          message: "当前分组 default 下对于模型 x 无可用渠道 (request id: 20241204153012abcd123456)",
          type: "invalid_request_error",
          param: null,
          code: "model_not_found",
        },
      },
    });
  });
});

describe("newRequestId", () => {
  it("is time-prefixed, 24 chars and unique", () => {
    const t = Date.UTC(2024, 11, 4, 15, 30, 12);
    const id = newRequestId(t);
    expect(id).toMatch(/^20241204153012[0-9a-z]{10}$/);
    const ids = new Set(Array.from({ length: 20_000 }, () => newRequestId(t)));
    expect(ids.size).toBe(20_000);
  });
});

describe("shouldRetry", () => {
  it("follows new-api's table, except that 504 and 524 are retried", () => {
    const openai = 1;
    expect(shouldRetry(429, openai)).toBe(true);
    expect(shouldRetry(307, openai)).toBe(true);
    for (const s of [500, 502, 503, 504, 524]) expect(shouldRetry(s, openai)).toBe(true);
    expect(shouldRetry(400, openai)).toBe(false);
    expect(shouldRetry(400, 14)).toBe(true);
    expect(shouldRetry(408, openai)).toBe(false);
    expect(shouldRetry(401, openai)).toBe(true);
    expect(shouldRetry(404, openai)).toBe(true);
    expect(shouldRetry(200, openai)).toBe(false);
    expect(shouldRetry(500, openai, { pinned: true })).toBe(false);
    expect(shouldRetry(500, openai, { localError: true })).toBe(false);
  });
});

describe("shouldDisableChannel", () => {
  it("triggers on dead keys and accounts only", () => {
    expect(shouldDisableChannel(401, null, 1)).toBe(true);
    expect(shouldDisableChannel(403, null, 24)).toBe(true);
    expect(shouldDisableChannel(403, null, 1)).toBe(false);
    expect(
      shouldDisableChannel(
        429,
        '{"error":{"message":"You exceeded your current quota, please check your plan","type":"insufficient_quota","code":"insufficient_quota"}}',
        1,
      ),
    ).toBe(true);
    expect(shouldDisableChannel(400, { type: "invalid_request_error", code: "invalid_api_key", message: "x" }, 1)).toBe(true);
    expect(shouldDisableChannel(403, { type: "x", code: null, message: "Your account is not authorized to use this model" }, 33)).toBe(
      true,
    );
    expect(shouldDisableChannel(429, '{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}', 1)).toBe(
      false,
    );
    expect(shouldDisableChannel(500, "<html>bad gateway</html>", 1)).toBe(false);
  });
});

describe("status code mapping", () => {
  it("maps errors only, never success, and ignores bad entries", () => {
    const m = parseStatusCodeMapping('{"400":"500","429":503,"404":"200","abc":"500","502":"x"}');
    expect(m).toEqual({ "400": 500, "429": 503 });
    expect(applyStatusCodeMapping(400, m)).toBe(500);
    expect(applyStatusCodeMapping(429, m)).toBe(503);
    expect(applyStatusCodeMapping(404, m)).toBe(404);
    expect(applyStatusCodeMapping(200, { "200": 500 })).toBe(200);
    expect(applyStatusCodeMapping(401, null)).toBe(401);
    expect(parseStatusCodeMapping("not json")).toEqual({});
  });
});

describe("channel config", () => {
  it("parses the stored text fields", () => {
    const c = toChannelConfig({
      id: 7,
      type: 3,
      key: "k",
      base_url: "https://x.openai.azure.com/",
      model_mapping: '{"gpt-4o":"gpt-4o-prod","bad":1}',
      status_code_mapping: "",
      auto_ban: 0,
    });
    expect(c.base_url).toBe("https://x.openai.azure.com");
    expect(c.model_mapping).toEqual({ "gpt-4o": "gpt-4o-prod" });
    expect(c.auto_ban).toBe(false);
    expect(resolveUpstreamModel(c, "gpt-4o")).toBe("gpt-4o-prod");
    expect(resolveUpstreamModel(c, "gpt-4o-prod")).toBe("gpt-4o-prod");
    // one hop only
    expect(resolveUpstreamModel({ model_mapping: parseModelMapping('{"a":"b","b":"c"}') }, "a")).toBe("b");
  });
});

describe("parseUpstreamError", () => {
  it("keeps OpenAI's error object", () => {
    expect(
      parseUpstreamError(
        401,
        '{"error":{"message":"Incorrect API key provided: sk-abc***xyz.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}',
      ),
    ).toEqual({
      status: 401,
      message: "Incorrect API key provided: sk-abc***xyz.",
      type: "invalid_request_error",
      param: null,
      code: "invalid_api_key",
    });
  });

  it("finds messages in other vendors' shapes", () => {
    const cases: Array<[string, string]> = [
      ['{"message":"model not found"}', "model not found"],
      ['{"msg":"参数错误"}', "参数错误"],
      ['{"err":"bad"}', "bad"],
      ['{"error_msg":"Open api daily request limit reached","error_code":17}', "Open api daily request limit reached"],
      ['{"header":{"code":10013,"message":"input content is illegal"}}', "input content is illegal"],
      ['{"response":{"error":{"message":"rate limited"}}}', "rate limited"],
      ['{"result":null,"success":false,"errors":[{"code":7000,"message":"No route for that URI"}],"messages":[]}', "No route for that URI"],
      ['{"error":"upstream said no"}', "upstream said no"],
      ['{"detail":"Not Found"}', "Not Found"],
    ];
    for (const [body, message] of cases) {
      const e = parseUpstreamError(400, body);
      expect(e.message).toBe(message);
      expect(e.type).toBe("upstream_error");
    }
    expect(
      parseUpstreamError(
        422,
        '{"object":"error","message":{"detail":[{"type":"extra_forbidden"}]},"type":"invalid_request_error","code":null}',
      ),
    ).toMatchObject({
      message: '{"detail":[{"type":"extra_forbidden"}]}',
      type: "invalid_request_error",
    });
  });

  it("describes HTML and empty bodies by status", () => {
    expect(parseUpstreamError(502, "<html><body>502 Bad Gateway</body></html>")).toEqual({
      status: 502,
      message: "bad response status code 502",
      type: "upstream_error",
      code: "bad_response_status_code",
      param: "502",
    });
    expect(parseUpstreamError(503, "").message).toBe("bad response status code 503");
    expect(parseUpstreamError(429, "Too Many Requests").message).toBe("bad response status code 429: Too Many Requests");
  });
});

describe("network errors", () => {
  it("never reveals the upstream address", () => {
    const err = new TypeError("fetch failed", {
      cause: Object.assign(new Error("connect ECONNREFUSED 10.0.0.5:8443"), { code: "ECONNREFUSED" }),
    });
    const d = describeUpstreamNetworkError(err);
    expect(d.message).toBe("请求上游地址失败: connection refused (ECONNREFUSED)");
    expect(d.message).not.toContain("10.0.0.5");
    expect(describeUpstreamNetworkError(new Error("getaddrinfo ENOTFOUND api.secret-vendor.internal")).message).toBe("请求上游地址失败");
  });
});

describe("no channel, overloaded, retry-after", () => {
  it("answers an unserved model as the vendors answer an unknown one: 404 model_not_found", () => {
    const e = noChannelError("vip", "gpt-x");
    expect(e).toMatchObject({ status: 404, type: "invalid_request_error", code: "model_not_found" });
    expect(e.message).toBe("当前分组 vip 下对于模型 gpt-x 无可用渠道");
  });

  it("calls a failure overloaded only for 529 or a 503 that says so", () => {
    expect(isOverloaded(529, "overloaded_error", null)).toBe(true);
    expect(isOverloaded(503, "server_error", null, "The engine is currently overloaded")).toBe(true);
    expect(isOverloaded(503, "upstream_error", "bad_response_status_code", "bad response status code 503")).toBe(false);
    expect(isOverloaded(500, "overloaded_error", null)).toBe(false);
  });

  it("reads retry-after as seconds, or an HTTP date as the seconds left", () => {
    expect(retryAfterSeconds("7")).toBe("7");
    expect(retryAfterSeconds(["3", "9"])).toBe("3");
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterSeconds("Thu, 01 Jan 2026 00:00:30 GMT", now)).toBe("30");
    expect(retryAfterSeconds("Wed, 31 Dec 2025 23:00:00 GMT", now)).toBe("0");
    expect(retryAfterSeconds(undefined)).toBeUndefined();
    expect(retryAfterSeconds("soon")).toBeUndefined();
  });
});
