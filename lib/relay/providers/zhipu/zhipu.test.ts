import { readFileSync } from "node:fs";
import path from "node:path";
import { decodeProtectedHeader, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import type { ChannelConfig } from "../../types";
import type { BuildRequestInput, UpstreamRequest } from "../types";
import { replayStream } from "@/tests/helpers/vendor-stream";
import { signZhipuToken, ZHIPU_TOKEN_TTL_MS, zhipuToken } from "./token";
import { toZhipuV3Body } from "./v3";
import { zhipuV3, zhipuV4 } from "./index";
import { unknownEventCounts } from "../unknown-events";

const fixture = (name: string) => readFileSync(path.join(__dirname, "__fixtures__", name), "utf8");
const KEY = "a1b2c3d4e5.s3cr3tS3cr3tS3cr3t";

function input(type: 16 | 26, json: Record<string, unknown>, o: Partial<BuildRequestInput> = {}): BuildRequestInput {
  const channel = {
    id: 1,
    type,
    name: "zhipu",
    key: KEY,
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
    upstreamModel: String(json.model),
    clientPath: "/v1/chat/completions",
    body: JSON.stringify(json),
    contentType: "application/json",
    stream: json.stream === true,
    json,
    ...o,
  };
}

describe("Zhipu JWT", () => {
  it("is HS256 with sign_type SIGN, signed by the secret, with millisecond claims", async () => {
    const now = 1_700_000_000_000;
    const token = signZhipuToken(KEY, now);
    expect(decodeProtectedHeader(token)).toEqual({ alg: "HS256", sign_type: "SIGN" });
    const { payload } = await jwtVerify(token, new TextEncoder().encode("s3cr3tS3cr3tS3cr3t"), { algorithms: ["HS256"] });
    expect(payload).toEqual({ api_key: "a1b2c3d4e5", exp: now + ZHIPU_TOKEN_TTL_MS, timestamp: now });
    await expect(jwtVerify(token, new TextEncoder().encode("wrong"))).rejects.toThrow();
  });

  it("is cached per key until shortly before it expires", () => {
    const t0 = 1_700_000_000_000;
    const first = zhipuToken(KEY, t0);
    expect(zhipuToken(KEY, t0 + 60_000)).toBe(first);
    expect(zhipuToken(KEY, t0 + ZHIPU_TOKEN_TTL_MS - 60_000)).not.toBe(first);
  });

  it("refuses a key that is not id.secret as the channel's fault", () => {
    const err = (() => {
      try {
        signZhipuToken("no-dot", 0);
      } catch (e) {
        return e as { local: boolean; message: string };
      }
    })();
    expect(err?.local).toBe(false);
    expect(err?.message).toContain("id.secret");
  });
});

describe("Zhipu v4 (26)", () => {
  it("sends the OpenAI body to /api/paas/v4 with a bearer JWT, clamped, images as bare base64", () => {
    const up = zhipuV4.buildRequest(
      input(26, {
        model: "glm-4v",
        stream: true,
        stream_options: { include_usage: true },
        temperature: 0,
        top_p: 1,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "这是什么" },
              { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
              { type: "image_url", image_url: { url: "https://example.com/a.png" } },
            ],
          },
        ],
      }),
    ) as UpstreamRequest;
    expect(up.url).toBe("https://open.bigmodel.cn/api/paas/v4/chat/completions");
    expect(up.headers.Authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    const body = JSON.parse(String(up.body));
    expect(body.temperature).toBe(0.01);
    expect(body.top_p).toBe(0.99);
    expect(body.stream_options).toBeUndefined();
    expect(body.messages[0].content[1].image_url.url).toBe("iVBORw0KGgo=");
    expect(body.messages[0].content[2].image_url.url).toBe("https://example.com/a.png");
  });

  it("leaves a body that needs no change as sent", () => {
    const json = { model: "glm-4", messages: [{ role: "user", content: "hi" }], temperature: 0.5 };
    const up = zhipuV4.buildRequest(input(26, json)) as UpstreamRequest;
    expect(JSON.parse(String(up.body))).toEqual(json);
    const emb = zhipuV4.buildRequest(input(26, { model: "embedding-2", input: "x" }, { mode: "embeddings" })) as UpstreamRequest;
    expect(emb.url).toBe("https://open.bigmodel.cn/api/paas/v4/embeddings");
  });
});

describe("Zhipu v3 (16)", () => {
  const HI = {
    model: "chatglm_turbo",
    messages: [
      { role: "system", content: "简短" },
      { role: "user", content: "你好" },
    ],
  };

  it("builds the invoke and sse-invoke calls with the raw JWT", () => {
    const whole = zhipuV3.buildRequest(input(16, HI)) as UpstreamRequest;
    expect(whole.url).toBe("https://open.bigmodel.cn/api/paas/v3/model-api/chatglm_turbo/invoke");
    expect(whole.headers.Authorization).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(JSON.parse(String(whole.body))).toEqual({ prompt: [{ role: "user", content: "简短\n\n你好" }] });
    const stream = zhipuV3.buildRequest(input(16, { ...HI, stream: true, top_p: 1, temperature: 0.3 })) as UpstreamRequest;
    expect(stream.url).toMatch(/\/chatglm_turbo\/sse-invoke$/);
    expect(JSON.parse(String(stream.body))).toMatchObject({ incremental: true, top_p: 0.99, temperature: 0.3 });
    expect(toZhipuV3Body({ messages: [{ role: "user", content: "x" }], temperature: 5 }, false).temperature).toBe(1);
  });

  it("converts a whole answer (quotes unwrapped) and a code != 200 into OpenAI's error", () => {
    const up = zhipuV3.buildRequest(input(16, HI)) as UpstreamRequest;
    const answer = JSON.parse(up.response!.json(JSON.parse(fixture("v3-invoke.json"))).body);
    expect(answer).toMatchObject({
      id: "8035734573812908416",
      object: "chat.completion",
      choices: [
        { message: { role: "assistant", content: " 你好！我是人工智能助手 ChatGLM。\n有什么可以帮你的吗？" }, finish_reason: "stop" },
      ],
      usage: { prompt_tokens: 6, completion_tokens: 17, total_tokens: 23 },
    });
    expect(JSON.parse(up.response!.json(JSON.parse(fixture("v3-error.json"))).body)).toEqual({
      error: { message: "Prompt 超长", type: "upstream_error", param: null, code: 1261 },
    });
  });

  it("frames the text events into chunks, with the usage from finish's meta", () => {
    const r = replayStream(zhipuV3.buildRequest(input(16, { ...HI, stream: true })) as UpstreamRequest, fixture("v3-sse.txt"), 5);
    expect(r.text).toBe("你好！我是\nChatGLM");
    expect(r.finishReason).toBe("stop");
    expect(r.usage).toMatchObject({ prompt_tokens: 6, completion_tokens: 9 });
    expect(r.error).toBeNull();
  });

  it("counts an event type it does not know and still ends the stream", () => {
    const before = unknownEventCounts().get("zhipu:progress") ?? 0;
    const recorded = fixture("v3-sse.txt").replace("event: finish", "event: progress\ndata: 50%\n\nevent: finish");
    const r = replayStream(zhipuV3.buildRequest(input(16, { ...HI, stream: true })) as UpstreamRequest, recorded, 5);
    expect(unknownEventCounts().get("zhipu:progress")).toBe(before + 1);
    expect(r.text).toBe("你好！我是\nChatGLM");
    expect(r.finishReason).toBe("stop");
    expect(r.usage).toMatchObject({ prompt_tokens: 6, completion_tokens: 9 });
    expect(r.out.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("reports an error event, and an error body answered to a stream request", () => {
    const up = () => zhipuV3.buildRequest(input(16, { ...HI, stream: true })) as UpstreamRequest;
    const mid = replayStream(up(), fixture("v3-sse-error.txt"));
    expect(mid.text).toBe("你好");
    expect(mid.error?.message).toBe("系统繁忙");
    const body = replayStream(up(), fixture("v3-error.json"));
    expect(body.error?.message).toBe("Prompt 超长");
  });
});
