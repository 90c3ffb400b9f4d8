import { readFileSync } from "node:fs";
import { Agent } from "undici";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSparkMock, type SparkMock } from "@/tests/mocks/spark";
import type { UpstreamSink } from "../../upstream";
import type { ChannelConfig } from "../../types";
import { spark } from ".";
import { parseSparkKey, signSparkUrl, sparkSignature, sparkVersion } from "./auth";

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8");
const frames = (name: string) =>
  fixture(name)
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));

const KEY = { appId: "app-1", apiSecret: "secret-1", apiKey: "key-1" };

const channel = (base_url: string, key = `${KEY.appId}|${KEY.apiSecret}|${KEY.apiKey}`): ChannelConfig => ({
  id: 18,
  type: 18,
  name: "spark",
  key,
  base_url,
  other: "v3.5",
  openai_organization: "",
  model_mapping: {},
  status_code_mapping: {},
  auto_ban: true,
});

function build(json: Record<string, unknown>, base = "", key?: string) {
  return spark.buildRequest({
    channel: channel(base, key),
    mode: "chat",
    upstreamModel: String(json.model),
    clientPath: "/v1/chat/completions",
    body: JSON.stringify(json),
    contentType: "application/json",
    stream: json.stream === true,
    json,
  }) as Exclude<ReturnType<typeof spark.buildRequest>, Promise<unknown>>;
}

describe("Spark URL signature", () => {
  it("matches iFlytek's published example (通用 URL 鉴权)", () => {
    // The document's APISecret, date and request line; it prints the HMAC's first bytes as
    // b'\xcf\x98\x07v\xed\xe9\xc5Ux\x0032\x93\x8e\xbb…'.
    const sig = sparkSignature("MjlmNzkzNmZkMDQ2OTc0ZDdmNGE2ZTZi", "spark-api.xf-yun.com", "Fri, 05 May 2023 10:43:39 GMT", "/v1.1/chat");
    expect(Buffer.from(sig, "base64").subarray(0, 15)).toEqual(
      Buffer.from([0xcf, 0x98, 0x07, 0x76, 0xed, 0xe9, 0xc5, 0x55, 0x78, 0x00, 0x33, 0x32, 0x93, 0x8e, 0xbb]),
    );
    expect(sig).toBe("z5gHdu3pxVV4ADMyk467wOWDQ9q6BQzR3nfMTjc/DaQ=");
  });

  it("puts authorization, date and host in the query", () => {
    const date = new Date("2023-05-05T10:43:39Z");
    const signed = new URL(
      signSparkUrl(
        "wss://spark-api.xf-yun.com/v1.1/chat",
        { appId: "a", apiKey: "addd", apiSecret: "MjlmNzkzNmZkMDQ2OTc0ZDdmNGE2ZTZi" },
        date,
      ),
    );
    expect(signed.origin + signed.pathname).toBe("wss://spark-api.xf-yun.com/v1.1/chat");
    expect(signed.searchParams.get("date")).toBe("Fri, 05 May 2023 10:43:39 GMT");
    expect(signed.searchParams.get("host")).toBe("spark-api.xf-yun.com");
    expect(Buffer.from(signed.searchParams.get("authorization")!, "base64").toString()).toBe(
      'api_key="addd", algorithm="hmac-sha256", headers="host date request-line", signature="z5gHdu3pxVV4ADMyk467wOWDQ9q6BQzR3nfMTjc/DaQ="',
    );
  });

  it("reads the key as APPID|APISecret|APIKey", () => {
    expect(parseSparkKey(" a | s | k ")).toEqual({ appId: "a", apiSecret: "s", apiKey: "k" });
    expect(parseSparkKey("a|s")).toBeNull();
    expect(() => build({ model: "SparkDesk-v3.5", messages: [{ role: "user", content: "x" }] }, "", "only-one-part")).toThrow(
      /APPID\|APISecret\|APIKey/,
    );
  });

  it("picks the version from the model, else the channel's other, else Lite", () => {
    expect(sparkVersion("SparkDesk-v3.5", "")).toEqual({ path: "/v3.5/chat", domain: "generalv3.5" });
    expect(sparkVersion("SparkDesk-v1.1", "")).toEqual({ path: "/v1.1/chat", domain: "lite" });
    expect(sparkVersion("SparkDesk-v2.1", "")).toEqual({ path: "/v2.1/chat", domain: "generalv2" });
    expect(sparkVersion("SparkDesk-v3.1", "")).toEqual({ path: "/v3.1/chat", domain: "generalv3" });
    expect(sparkVersion("SparkDesk-v4.0", "")).toEqual({ path: "/v4.0/chat", domain: "4.0Ultra" });
    expect(sparkVersion("4.0Ultra", "")).toEqual({ path: "/v4.0/chat", domain: "4.0Ultra" });
    expect(sparkVersion("max-32k", "")).toEqual({ path: "/chat/max-32k", domain: "max-32k" });
    expect(sparkVersion("SparkDesk-pro-128k", "")).toEqual({ path: "/chat/pro-128k", domain: "pro-128k" });
    expect(sparkVersion("SparkDesk", "v3.1")).toEqual({ path: "/v3.1/chat", domain: "generalv3" });
    expect(sparkVersion("SparkDesk", "")).toEqual({ path: "/v1.1/chat", domain: "lite" });
    expect(sparkVersion("SparkDesk-v5.0", "")).toEqual({ path: "/v5.0/chat", domain: "general5.0" });
  });
});

describe("Spark frames", () => {
  it("builds the request frame: domain, sampling clamped, functions from tools", () => {
    const req = build({
      model: "SparkDesk-v3.5",
      user: "u-1",
      temperature: 0,
      top_k: 9,
      max_tokens: 100,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather in Hefei?" },
      ],
      tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }],
    });
    expect(JSON.parse(String(req.body))).toEqual({
      header: { app_id: "app-1", uid: "u-1" },
      parameter: { chat: { domain: "generalv3.5", temperature: 0.01, max_tokens: 100, top_k: 6 } },
      payload: {
        message: {
          text: [
            { role: "system", content: "Be brief." },
            { role: "user", content: "Weather in Hefei?" },
          ],
        },
        functions: { text: [{ name: "get_weather", parameters: { type: "object" } }] },
      },
    });
    expect(req.url).toMatch(/^wss:\/\/spark-api\.xf-yun\.com\/v3\.5\/chat\?authorization=/);
  });

  it("refuses image parts", () => {
    expect(() =>
      build({
        model: "SparkDesk-v3.5",
        messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://x.test/a.png" } }] }],
      }),
    ).toThrow(/text only/);
  });

  it("streams frames as chunks, the usage on the last", () => {
    const req = build({ model: "SparkDesk-v3.5", stream: true, messages: [{ role: "user", content: "你好" }] });
    const chunks = frames("chat.frames.jsonl").map((f) => req.response!.streamEvent!(f)) as Record<string, any>[];
    expect(chunks.map((c) => c.choices[0].delta.content)).toEqual(["你好！", "我是讯飞星火认知大模型，", "很高兴为你服务。"]);
    expect(chunks[0]!.choices[0].delta.role).toBe("assistant");
    expect(chunks[2]).toMatchObject({
      choices: [{ finish_reason: "stop" }],
      usage: { prompt_tokens: 2, completion_tokens: 19, total_tokens: 21 },
    });
    expect(chunks[0]!.usage).toBeUndefined();
  });

  it("converts a function call into a tool call", () => {
    const req = build({ model: "SparkDesk-v3.5", messages: [{ role: "user", content: "合肥天气" }] });
    const out = JSON.parse(req.response!.json(frames("function-call.frames.jsonl")[0]).body);
    expect(out.choices[0]).toMatchObject({
      finish_reason: "tool_calls",
      message: { tool_calls: [{ type: "function", function: { name: "get_weather", arguments: '{"location":"合肥"}' } }] },
    });
  });

  it("turns an error frame into OpenAI's error", () => {
    const req = build({ model: "SparkDesk-v3.5", stream: true, messages: [{ role: "user", content: "x" }] });
    expect(req.response!.streamEvent!(JSON.parse(fixture("error.frame.json")))).toMatchObject({
      error: { message: expect.stringContaining("输入内容审核不通过"), type: "upstream_error", code: 10013 },
    });
  });
});

describe("Spark exchange over a WebSocket", () => {
  let mock: SparkMock;
  const agent = new Agent();
  beforeAll(async () => {
    mock = await startSparkMock(KEY);
  });
  afterAll(async () => {
    await mock.close();
    await agent.close();
  });
  beforeEach(() => mock.reset());

  function collect(exchange: ReturnType<NonNullable<ReturnType<typeof build>["open"]>>): Promise<string> {
    return new Promise((resolve, reject) => {
      let text = "";
      const sink: UpstreamSink = {
        data: (c) => ((text += c.toString("utf8")), true),
        end: () => resolve(text),
        error: reject,
      };
      exchange.pipe(sink);
    });
  }

  it("sends the frame on a signed URL and presents the frames as SSE", async () => {
    mock.frames = frames("chat.frames.jsonl");
    const req = build({ model: "SparkDesk-v3.5", stream: true, messages: [{ role: "user", content: "你好" }] }, mock.url);
    const exchange = req.open!(agent);
    await exchange.response;
    expect(exchange.status).toBe(200);
    expect(exchange.headers["content-type"]).toBe("text/event-stream");
    const sse = await collect(exchange);
    expect(sse.split("\n\n").filter(Boolean)).toHaveLength(3);
    expect(sse.startsWith(`data: ${JSON.stringify(mock.frames[0])}\n\n`)).toBe(true);
    expect(mock.requests[0]).toMatchObject({ path: "/v3.5/chat", frame: { parameter: { chat: { domain: "generalv3.5" } } } });
  });

  it("merges a whole answer's frames into one JSON", async () => {
    mock.frames = frames("chat.frames.jsonl");
    const req = build({ model: "SparkDesk-v3.5", messages: [{ role: "user", content: "你好" }] }, mock.url);
    const exchange = req.open!(agent);
    await exchange.response;
    expect(exchange.headers["content-type"]).toBe("application/json");
    const merged = JSON.parse(await exchange.text());
    const out = JSON.parse(req.response!.json(merged).body);
    expect(out.choices[0].message.content).toBe("你好！我是讯飞星火认知大模型，很高兴为你服务。");
    expect(out.usage).toEqual({ prompt_tokens: 2, completion_tokens: 19, total_tokens: 21 });
  });

  it("presents a refused handshake's status and body", async () => {
    const req = build({ model: "SparkDesk-v3.5", messages: [{ role: "user", content: "x" }] }, mock.url, "app-1|wrong-secret|key-1");
    const exchange = req.open!(agent);
    await exchange.response;
    expect(exchange.status).toBe(401);
    expect(JSON.parse(await exchange.text())).toEqual(JSON.parse(fixture("handshake-401.json")));
    expect(mock.refused).toBe(1);
  });

  it("presents an error frame before any answer as an error status", async () => {
    mock.frames = [JSON.parse(fixture("error.frame.json"))];
    const req = build({ model: "SparkDesk-v3.5", stream: true, messages: [{ role: "user", content: "x" }] }, mock.url);
    const exchange = req.open!(agent);
    await exchange.response;
    expect(exchange.status).toBe(400);
    expect(JSON.parse(await exchange.text()).error).toMatchObject({ code: 10013, type: "upstream_error" });
  });

  it("a frame that is not JSON ends the stream with an error", async () => {
    mock.frames = [frames("chat.frames.jsonl")[0], "not json"];
    const req = build({ model: "SparkDesk-v3.5", stream: true, messages: [{ role: "user", content: "x" }] }, mock.url);
    const exchange = req.open!(agent);
    await exchange.response;
    const events = (await collect(exchange))
      .split("\n\n")
      .filter(Boolean)
      .map((e) => req.response!.streamEvent!(JSON.parse(e.slice(6))));
    expect(events[0]!.choices).toBeDefined();
    expect(events[1]).toMatchObject({ error: { message: "Spark sent a frame that is not a JSON object", type: "upstream_error" } });
  });

  it("abort closes the socket", async () => {
    mock.frames = frames("chat.frames.jsonl");
    mock.gapMs = 300;
    const req = build({ model: "SparkDesk-v3.5", stream: true, messages: [{ role: "user", content: "x" }] }, mock.url);
    const exchange = req.open!(agent);
    await exchange.response;
    const done = collect(exchange);
    exchange.abort(new Error("client left"));
    await expect(done).rejects.toThrow("client left");
    await expect.poll(() => mock.closed).toBe(1);
  });

  it("a refused connection rejects the response", async () => {
    const req = build({ model: "SparkDesk-v3.5", messages: [{ role: "user", content: "x" }] }, "http://127.0.0.1:1");
    await expect(req.open!(agent).response).rejects.toThrow();
  });
});
