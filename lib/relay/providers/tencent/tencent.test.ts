import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ChannelConfig } from "../../types";
import type { BuildRequestInput, UpstreamRequest } from "../types";
import { replayStream } from "@/tests/helpers/vendor-stream";
import { toHunyuanBody } from "./convert";
import { hunyuan } from "./index";
import { unknownEventCounts } from "../unknown-events";
import { HunyuanStreamEvent } from "./api";
import { tc3Authorization, tc3CanonicalRequest, tc3Signature, tc3StringToSign, type Tc3Request } from "./sign";

const fixture = (name: string) => readFileSync(path.join(__dirname, "__fixtures__", name), "utf8");

// Tencent Cloud's published example ("签名方法 v3", CVM DescribeInstances, 2019-02-25).
const EXAMPLE: Tc3Request = {
  secretId: "AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE",
  secretKey: "Gu5t9xGARNpq86cd98joQYCN3EXAMPLE",
  service: "cvm",
  host: "cvm.tencentcloudapi.com",
  contentType: "application/json; charset=utf-8",
  payload: '{"Limit": 1, "Filters": [{"Values": ["\\u672a\\u547d\\u540d"], "Name": "instance-name"}]}',
  timestamp: 1551113065,
};

describe("TC3-HMAC-SHA256", () => {
  it("reproduces Tencent's published example step by step", () => {
    expect(tc3CanonicalRequest(EXAMPLE)).toBe(
      "POST\n/\n\ncontent-type:application/json; charset=utf-8\nhost:cvm.tencentcloudapi.com\n\ncontent-type;host\n35e9c5b0e3ae67532d3c9f17ead6c90222632e5b1ff7f6e89887f1398934f064",
    );
    expect(tc3StringToSign(EXAMPLE)).toBe(
      "TC3-HMAC-SHA256\n1551113065\n2019-02-25/cvm/tc3_request\n5ffe6a04c0664d6b969fab9a13bdab201d63ee709638e2749d62a09ca18d7031",
    );
    expect(tc3Signature(EXAMPLE)).toBe("72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168");
    expect(tc3Authorization(EXAMPLE)).toBe(
      "TC3-HMAC-SHA256 Credential=AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE/2019-02-25/cvm/tc3_request, SignedHeaders=content-type;host, Signature=72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168",
    );
  });
});

function input(json: Record<string, unknown>, key = "1300000000|AKIDtest|secretTest"): BuildRequestInput {
  const channel = {
    id: 1,
    type: 23,
    name: "hy",
    key,
    base_url: "",
    other: "",
    openai_organization: "",
    model_mapping: {},
    status_code_mapping: {},
    auto_ban: false,
  } as ChannelConfig;
  return {
    channel,
    mode: "chat",
    upstreamModel: "hunyuan-lite",
    clientPath: "/v1/chat/completions",
    body: JSON.stringify(json),
    contentType: "application/json",
    stream: json.stream === true,
    json,
  };
}

const HI = {
  model: "hunyuan-lite",
  messages: [
    { role: "system", content: "简短" },
    { role: "user", content: "你好" },
  ],
  temperature: 0.5,
  top_p: 0.9,
};

describe("Hunyuan", () => {
  it("sends the PascalCase body with the API 3.0 headers, signed over that body", () => {
    const up = hunyuan.buildRequest(input(HI)) as UpstreamRequest;
    expect(up.url).toBe("https://hunyuan.tencentcloudapi.com/");
    expect(JSON.parse(String(up.body))).toEqual({
      Model: "hunyuan-lite",
      Messages: [
        { Role: "system", Content: "简短" },
        { Role: "user", Content: "你好" },
      ],
      Stream: false,
      Temperature: 0.5,
      TopP: 0.9,
    });
    expect(up.headers["X-TC-Action"]).toBe("ChatCompletions");
    expect(up.headers["X-TC-Version"]).toBe("2023-09-01");
    const timestamp = Number(up.headers["X-TC-Timestamp"]);
    expect(up.headers.Authorization).toBe(
      tc3Authorization({
        secretId: "AKIDtest",
        secretKey: "secretTest",
        service: "hunyuan",
        host: "hunyuan.tencentcloudapi.com",
        contentType: "application/json",
        payload: String(up.body),
        timestamp,
      }),
    );
    expect(toHunyuanBody({ messages: [{ role: "user", content: "x" }], temperature: 9 }, "m", true)).toMatchObject({
      Temperature: 2,
      Stream: true,
    });
  });

  it("refuses a key that is not AppId|SecretId|SecretKey as the channel's fault", () => {
    expect(() => hunyuan.buildRequest(input(HI, "only-one"))).toThrow(/AppId\|SecretId\|SecretKey/);
  });

  it("converts a whole answer and Response.Error", () => {
    const up = hunyuan.buildRequest(input(HI)) as UpstreamRequest;
    expect(JSON.parse(up.response!.json(JSON.parse(fixture("chat.json"))).body)).toMatchObject({
      id: "e5d64a6c-4e83-4d5a-97f4-24c0b5ac3e5d",
      object: "chat.completion",
      model: "hunyuan-lite",
      choices: [{ message: { role: "assistant", content: "你好！有什么我可以帮助你的吗？" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 3, completion_tokens: 9, total_tokens: 12 },
    });
    expect(JSON.parse(up.response!.json(JSON.parse(fixture("error-signature.json"))).body)).toEqual({
      error: {
        message: "The provided credentials could not be validated. Please check your signature is correct.",
        type: "upstream_error",
        param: null,
        code: "AuthFailure.SignatureFailure",
      },
    });
  });

  it("replays a stream with the final usage, and an error body answered to a stream request", () => {
    const up = () => hunyuan.buildRequest(input({ ...HI, stream: true })) as UpstreamRequest;
    const r = replayStream(up(), fixture("chat.chunks.txt"), 11);
    expect(r.text).toBe("你好！有什么可以帮你？");
    expect(r.finishReason).toBe("stop");
    expect(r.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 7 });
    const e = replayStream(up(), fixture("error-signature.json"));
    expect(e.error?.code).toBe("AuthFailure.SignatureFailure");
  });
});

const WEATHER = {
  type: "function",
  function: { name: "get_weather", description: "查询天气", parameters: { type: "object", properties: { city: { type: "string" } } } },
};

describe("Hunyuan tools and images", () => {
  it("sends tools, tool_choice, assistant ToolCalls and tool results in Hunyuan's shape", () => {
    const body = toHunyuanBody(
      {
        messages: [
          { role: "system", content: "你是助手" },
          { role: "user", content: "北京天气？" },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"北京"}' } }],
          },
          { role: "tool", tool_call_id: "call_1", content: "晴，25度" },
        ],
        tools: [WEATHER],
        tool_choice: { type: "function", function: { name: "get_weather" } },
      },
      "hunyuan-functioncall",
      false,
    );
    const tool = {
      Type: "function",
      Function: { Name: "get_weather", Description: "查询天气", Parameters: JSON.stringify(WEATHER.function.parameters) },
    };
    expect(body).toEqual({
      Model: "hunyuan-functioncall",
      Stream: false,
      Messages: [
        { Role: "system", Content: "你是助手" },
        { Role: "user", Content: "北京天气？" },
        {
          Role: "assistant",
          Content: "",
          ToolCalls: [{ Id: "call_1", Type: "function", Function: { Name: "get_weather", Arguments: '{"city":"北京"}' } }],
        },
        { Role: "tool", Content: "晴，25度", ToolCallId: "call_1" },
      ],
      Tools: [tool],
      ToolChoice: "custom",
      CustomTool: tool,
    });
    const auto = toHunyuanBody({ messages: [{ role: "user", content: "x" }], tools: [WEATHER], tool_choice: "none" }, "m", false);
    expect(auto.ToolChoice).toBe("none");
  });

  it("sends image parts as Contents (http and data: URLs as they are)", () => {
    const body = toHunyuanBody(
      {
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "这是什么？" },
              { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
              { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
            ],
          },
        ],
      },
      "hunyuan-vision",
      false,
    );
    expect(body.Messages).toEqual([
      {
        Role: "user",
        Contents: [
          { Type: "text", Text: "这是什么？" },
          { Type: "image_url", ImageUrl: { Url: "https://example.com/cat.png" } },
          { Type: "image_url", ImageUrl: { Url: "data:image/png;base64,iVBORw0KGgo=" } },
        ],
      },
    ]);
  });

  it("refuses a tool conversation that ends with the assistant", () => {
    expect(() =>
      toHunyuanBody(
        {
          messages: [
            { role: "user", content: "x" },
            { role: "assistant", content: "y" },
          ],
          tools: [WEATHER],
        },
        "m",
        false,
      ),
    ).toThrow(/must end with a user or tool message/);
  });

  it("converts a whole answer's ToolCalls into OpenAI tool_calls", () => {
    const up = hunyuan.buildRequest(input(HI)) as UpstreamRequest;
    const answer = JSON.parse(up.response!.json(JSON.parse(fixture("tool-call.json"))).body);
    expect(answer.choices[0]).toMatchObject({
      finish_reason: "tool_calls",
      message: {
        role: "assistant",
        tool_calls: [
          { id: "call_cq8lnqhsk5d2lq1hbq8g", type: "function", function: { name: "get_weather", arguments: '{"city":"北京"}' } },
        ],
      },
    });
    expect(answer.usage).toMatchObject({ prompt_tokens: 112, completion_tokens: 21 });
  });

  it("replays streamed ToolCalls merged by Id into indexed OpenAI tool_call deltas", () => {
    const up = hunyuan.buildRequest(input({ ...HI, stream: true })) as UpstreamRequest;
    const r = replayStream(up, fixture("tool-call.chunks.txt"), 13);
    expect(r.finishReason).toBe("tool_calls");
    expect(r.usage).toMatchObject({ prompt_tokens: 112, completion_tokens: 26 });
    const deltas = r.events.flatMap(
      (e) => ((e.choices as { delta?: { tool_calls?: unknown[] } }[])[0]?.delta?.tool_calls ?? []) as Record<string, any>[],
    );
    expect(deltas).toEqual([
      { index: 0, id: "call_cq8lo2hsk5d2lq1hbqa0", type: "function", function: { name: "get_weather", arguments: '{"city":' } },
      { index: 0, function: { arguments: '"北京"}' } },
      { index: 1, id: "call_cq8lo2hsk5d2lq1hbqa1", type: "function", function: { name: "get_time", arguments: '{"city":"北京"}' } },
    ]);
  });
});

describe("Hunyuan stream events the converter does not know", () => {
  it("are counted, and the stream still ends with its finish and usage", () => {
    const before = unknownEventCounts().get("tencent:no-choices") ?? 0;
    const up = hunyuan.buildRequest(input({ ...HI, stream: true })) as UpstreamRequest;
    const r = replayStream(up, `data: {"Note":"x","Id":"y"}\n\n${fixture("chat.chunks.txt")}`, 11);
    expect(unknownEventCounts().get("tencent:no-choices")).toBe(before + 1);
    expect(r.text).toBe("你好！有什么可以帮你？");
    expect(r.finishReason).toBe("stop");
    expect(r.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 7 });
    expect(r.out.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("the recorded events fit the event schema", () => {
    for (const name of ["chat.chunks.txt", "tool-call.chunks.txt"])
      for (const l of fixture(name)
        .split("\n")
        .filter((l) => l.startsWith("data: ")))
        expect(HunyuanStreamEvent.safeParse(JSON.parse(l.slice(6))).success).toBe(true);
  });
});
