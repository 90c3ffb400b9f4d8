import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RelayError } from "../../errors";
import type { ChannelConfig } from "../../types";
import type { BuildRequestInput, UpstreamRequest } from "../types";
import { replayStream } from "@/tests/helpers/vendor-stream";
import { BAIDU_CLIENT, type BaiduMock, startBaiduMock } from "@/tests/mocks/baidu";
import { baiduEndpoint, toBaiduChatBody } from "./convert-request";
import { baidu } from "./index";
import { unknownEventCounts } from "../unknown-events";
import { BaiduStreamEvent } from "./api";

const fixture = (name: string) => readFileSync(path.join(__dirname, "__fixtures__", name), "utf8");

function channel(o: Partial<ChannelConfig> = {}): ChannelConfig {
  return {
    id: 1,
    type: 15,
    name: "baidu",
    key: `${BAIDU_CLIENT.id}|${BAIDU_CLIENT.secret}`,
    base_url: "",
    other: "",
    openai_organization: "",
    model_mapping: {},
    status_code_mapping: {},
    auto_ban: false,
    ...o,
  } as ChannelConfig;
}

function input(json: Record<string, unknown>, o: Partial<BuildRequestInput> = {}): BuildRequestInput {
  return {
    channel: channel(),
    mode: "chat",
    upstreamModel: String(json.model ?? "ERNIE-4.0-8K"),
    clientPath: "/v1/chat/completions",
    body: JSON.stringify(json),
    contentType: "application/json",
    stream: json.stream === true,
    json,
    ...o,
  };
}

const HI = { model: "ERNIE-4.0-8K", messages: [{ role: "user", content: "你好" }] };

describe("Baidu request conversion", () => {
  it("maps catalogue models to their endpoints, others to the lower-cased name", () => {
    expect(baiduEndpoint("ERNIE-4.0-8K")).toBe("completions_pro");
    expect(baiduEndpoint("ERNIE-3.5-8K")).toBe("completions");
    expect(baiduEndpoint("ERNIE-Speed-128K")).toBe("ernie-speed-128k");
    expect(baiduEndpoint("ERNIE-Lite-8K-0922")).toBe("eb-instant");
    expect(baiduEndpoint("Embedding-V1")).toBe("embedding-v1");
    expect(baiduEndpoint("bge-large-zh")).toBe("bge_large_zh");
  });

  it("moves system text out, merges turns so roles alternate, and clamps parameters", () => {
    const body = toBaiduChatBody(
      {
        messages: [
          { role: "system", content: "简短回答" },
          { role: "user", content: "一" },
          { role: "user", content: [{ type: "text", text: "二" }] },
          { role: "assistant", content: "好" },
          { role: "user", content: "三" },
        ],
        temperature: 0,
        top_p: 0.5,
        presence_penalty: 0.5,
        stop: "。",
        user: "u-1",
        max_tokens: 100,
      },
      true,
    );
    expect(body).toEqual({
      system: "简短回答",
      messages: [
        { role: "user", content: "一\n\n二" },
        { role: "assistant", content: "好" },
        { role: "user", content: "三" },
      ],
      temperature: 0.01,
      top_p: 0.5,
      penalty_score: 1,
      stop: ["。"],
      max_output_tokens: 100,
      user_id: "u-1",
      stream: true,
    });
    expect(toBaiduChatBody({ messages: [{ role: "user", content: "x" }], temperature: 1.7 }, false).temperature).toBe(1);
    // A greeting before the first user turn is dropped: Baidu's turns start with the user.
    expect(
      toBaiduChatBody(
        {
          messages: [
            { role: "assistant", content: "有什么可以帮您？" },
            { role: "user", content: "x" },
          ],
        },
        false,
      ).messages,
    ).toEqual([{ role: "user", content: "x" }]);
  });

  it("refuses a conversation that does not end with a user turn, before any token call", () => {
    const err = (() => {
      try {
        baidu.buildRequest(input({ model: "ERNIE-4.0-8K", messages: [{ role: "system", content: "x" }] }));
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(RelayError);
    expect((err as RelayError).status).toBe(400);
  });
});

describe("Baidu answers", () => {
  // A single-value key is used as the access token: no token call, the converters only.
  const direct = (json: Record<string, unknown>, o: Partial<BuildRequestInput> = {}) =>
    baidu.buildRequest(input(json, { channel: channel({ key: "24.ready-token" }), ...o })) as UpstreamRequest;

  it("converts a whole answer, usage included", () => {
    const up = direct(HI);
    expect(up.url).toBe("https://aip.baidubce.com/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro?access_token=24.ready-token");
    const answer = JSON.parse(up.response!.json(JSON.parse(fixture("chat.json"))).body);
    expect(answer).toMatchObject({
      id: "as-bcmt5ct4iy",
      object: "chat.completion",
      model: "ERNIE-4.0-8K",
      choices: [{ index: 0, message: { role: "assistant", content: "您好，我是文心一言，很高兴为您服务。" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 4, completion_tokens: 12, total_tokens: 16 },
    });
  });

  it("turns a 200 with error_code into OpenAI's error", () => {
    const up = direct(HI);
    expect(JSON.parse(up.response!.json(JSON.parse(fixture("error-token-invalid.json"))).body)).toEqual({
      error: { message: "Access token invalid or no longer valid", type: "upstream_error", param: null, code: 110 },
    });
  });

  it("replays a stream: text, finish reason and the final usage", () => {
    const r = replayStream(direct({ ...HI, stream: true }), fixture("chat.chunks.txt"));
    expect(r.text).toBe("您好，我是文心一言。");
    expect(r.finishReason).toBe("stop");
    expect(r.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 6 });
    expect(r.sawUsage).toBe(true);
    expect(r.out.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("reports an error body answered to a stream request as an error event", () => {
    const r = replayStream(direct({ ...HI, stream: true }), fixture("error-token-invalid.json"));
    expect(r.error?.message).toBe("Access token invalid or no longer valid");
    expect(r.out).toContain('"code":110');
  });

  it("converts embeddings both ways", () => {
    const up = direct({ model: "Embedding-V1", input: ["a", "b"] }, { mode: "embeddings", clientPath: "/v1/embeddings" });
    expect(up.url).toContain("/wenxinworkshop/embeddings/embedding-v1?access_token=");
    expect(JSON.parse(String(up.body))).toEqual({ input: ["a", "b"] });
    const answer = JSON.parse(up.response!.json(JSON.parse(fixture("embeddings.json"))).body);
    expect(answer.object).toBe("list");
    expect(answer.data).toHaveLength(2);
    expect(answer.data[1]).toMatchObject({ object: "embedding", index: 1 });
    expect(answer.usage).toEqual({ prompt_tokens: 12, total_tokens: 12 });
  });

  it("sends the v2 (qianfan.baidubce.com) API the OpenAI body with a bearer key", () => {
    const up = baidu.buildRequest(
      input(HI, { channel: channel({ key: "bce-v3/ALTAK-x/y", base_url: "https://qianfan.baidubce.com" }) }),
    ) as UpstreamRequest;
    expect(up.url).toBe("https://qianfan.baidubce.com/v2/chat/completions");
    expect(up.headers.Authorization).toBe("Bearer bce-v3/ALTAK-x/y");
    expect(up.response).toBeUndefined();
  });
});

describe("Baidu access token", () => {
  let mock: BaiduMock;
  beforeAll(async () => {
    mock = await startBaiduMock();
  });
  afterAll(() => mock.close());
  beforeEach(() => mock.reset());

  const viaMock = (key = `${BAIDU_CLIENT.id}|${BAIDU_CLIENT.secret}`) => input(HI, { channel: channel({ base_url: mock.url, key }) });

  it("fetches once for concurrent calls, then serves from the cache", async () => {
    mock.tokenDelayMs = 50;
    const key = `${BAIDU_CLIENT.id}|${BAIDU_CLIENT.secret}`;
    const built = await Promise.all([1, 2, 3].map(() => baidu.buildRequest(viaMock(key))));
    expect(mock.tokenCalls).toBe(1);
    const token = new URL(built[0]!.url).searchParams.get("access_token");
    expect(token).toMatch(/^24\.mock/);
    for (const b of built) expect(new URL(b.url).searchParams.get("access_token")).toBe(token);
    const again = baidu.buildRequest(viaMock(key));
    expect(again).not.toBeInstanceOf(Promise);
    expect(mock.tokenCalls).toBe(1);
    // Baidu calls it invalid: dropped, and the next call fetches a new one.
    mock.revokeAll();
    (again as UpstreamRequest).response!.json(JSON.parse(fixture("error-token-invalid.json")));
    const fresh = await baidu.buildRequest(viaMock(key));
    expect(mock.tokenCalls).toBe(2);
    expect(new URL(fresh.url).searchParams.get("access_token")).not.toBe(token);
  });

  it("a refused token call is the channel's failure (the next channel is tried)", async () => {
    const err = await Promise.resolve(baidu.buildRequest(viaMock("ak-wrong|sk-wrong"))).catch((e) => e);
    expect(err).toBeInstanceOf(RelayError);
    expect(err.local).toBe(false);
    expect(err.message).toContain("unknown client id");
  });

  it("a key that is neither a pair nor a token is a misconfigured channel", () => {
    expect(() => baidu.buildRequest(viaMock("a|b|c"))).toThrow(/API Key\|Secret Key/);
  });
});

const WEATHER = {
  type: "function",
  function: {
    name: "get_current_weather",
    description: "天气查询",
    parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] },
  },
};

describe("Baidu function calling", () => {
  const direct = (json: Record<string, unknown>) =>
    baidu.buildRequest(input(json, { channel: channel({ key: "24.ready-token" }) })) as UpstreamRequest;

  it("sends tools as functions, a tool call as function_call and its result as a function turn", () => {
    const body = toBaiduChatBody(
      {
        messages: [
          { role: "system", content: "助手" },
          { role: "user", content: "北京天气？" },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "call_1", type: "function", function: { name: "get_current_weather", arguments: '{"location":"北京"}' } }],
          },
          { role: "tool", tool_call_id: "call_1", content: '{"temperature":25}' },
        ],
        tools: [WEATHER],
        tool_choice: { type: "function", function: { name: "get_current_weather" } },
      },
      false,
    );
    expect(body).toEqual({
      system: "助手",
      messages: [
        { role: "user", content: "北京天气？" },
        { role: "assistant", content: "", function_call: { name: "get_current_weather", arguments: '{"location":"北京"}' } },
        { role: "function", name: "get_current_weather", content: '{"temperature":25}' },
      ],
      functions: [{ name: "get_current_weather", description: "天气查询", parameters: WEATHER.function.parameters }],
      tool_choice: { type: "function", function: { name: "get_current_weather" } },
    });
    expect(
      toBaiduChatBody({ messages: [{ role: "user", content: "x" }], tools: [WEATHER], tool_choice: "none" }, false).functions,
    ).toBeUndefined();
  });

  it("refuses two calls in one assistant turn and a tool result without a call", () => {
    const call = (id: string) => ({ id, type: "function", function: { name: "f", arguments: "{}" } });
    expect(() =>
      toBaiduChatBody(
        {
          messages: [
            { role: "user", content: "x" },
            { role: "assistant", tool_calls: [call("a"), call("b")] },
          ],
        },
        false,
      ),
    ).toThrow(/one function call per assistant turn/);
    expect(() =>
      toBaiduChatBody(
        {
          messages: [
            { role: "user", content: "x" },
            { role: "tool", tool_call_id: "a", content: "y" },
          ],
        },
        false,
      ),
    ).toThrow(/must follow the assistant's function call/);
  });

  it("converts a whole function_call answer into a tool call", () => {
    const answer = JSON.parse(direct(HI).response!.json(JSON.parse(fixture("function-call.json"))).body);
    expect(answer.choices[0]).toMatchObject({
      finish_reason: "tool_calls",
      message: {
        role: "assistant",
        content: "",
        reasoning_content: "用户想知道北京今天的天气，我需要调用 get_current_weather 查询。",
        tool_calls: [
          {
            id: "call_as-c2ykhmsmsk",
            type: "function",
            function: { name: "get_current_weather", arguments: '{"location":"北京","unit":"摄氏度"}' },
          },
        ],
      },
    });
    expect(answer.usage).toMatchObject({ prompt_tokens: 121, completion_tokens: 38 });
  });

  it("replays a streamed function_call as an indexed tool_call delta", () => {
    const r = replayStream(direct({ ...HI, stream: true }), fixture("function-call.chunks.txt"));
    expect(r.finishReason).toBe("tool_calls");
    expect(r.usage).toMatchObject({ prompt_tokens: 121, completion_tokens: 38 });
    const delta = (r.events[0]!.choices as { delta: Record<string, unknown> }[])[0]!.delta;
    expect(delta.tool_calls).toEqual([
      {
        index: 0,
        id: "call_as-6m7tbsqk3b",
        type: "function",
        function: { name: "get_current_weather", arguments: '{"location":"北京","unit":"摄氏度"}' },
      },
    ]);
  });

  it("forwards OpenAI's tools unchanged on the v2 (qianfan) API", () => {
    const json = { ...HI, tools: [WEATHER], tool_choice: "auto" };
    const up = baidu.buildRequest(
      input(json, { channel: channel({ key: "bce-v3/ALTAK-x/y", base_url: "https://qianfan.baidubce.com" }) }),
    ) as UpstreamRequest;
    expect(JSON.parse(String(up.body))).toMatchObject({ tools: [WEATHER], tool_choice: "auto" });
  });
});

describe("Baidu stream events the converter does not know", () => {
  const direct = (json: Record<string, unknown>) =>
    baidu.buildRequest(input(json, { channel: channel({ key: "24.ready-token" }) })) as UpstreamRequest;

  it("are counted, and the stream still ends with its finish and usage", () => {
    const before = unknownEventCounts().get("baidu:non-object") ?? 0;
    const r = replayStream(direct({ ...HI, stream: true }), `data: "keep-alive"\n\n${fixture("chat.chunks.txt")}`);
    expect(unknownEventCounts().get("baidu:non-object")).toBe(before + 1);
    expect(r.text).toBe("您好，我是文心一言。");
    expect(r.finishReason).toBe("stop");
    expect(r.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 6 });
    expect(r.out.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("the recorded events fit the event schema", () => {
    for (const name of ["chat.chunks.txt", "function-call.chunks.txt"])
      for (const l of fixture(name)
        .split("\n")
        .filter((l) => l.startsWith("data: ")))
        expect(BaiduStreamEvent.safeParse(JSON.parse(l.slice(6))).success).toBe(true);
  });
});
