import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ChannelConfig } from "../../types";
import { aiproxyLibrary } from ".";
import { replayStream } from "@/tests/helpers/vendor-stream";
import type { UpstreamRequest } from "../types";
import { unknownEventCounts } from "../unknown-events";
import { LibraryStreamEvent } from "./api";

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8");

const channel: ChannelConfig = {
  id: 4,
  type: 21,
  name: "kb",
  key: "ap-key",
  base_url: "",
  other: "lib-42",
  openai_organization: "",
  model_mapping: {},
  status_code_mapping: {},
  auto_ban: true,
};

function build(json: Record<string, unknown>, other = "lib-42") {
  return aiproxyLibrary.buildRequest({
    channel: { ...channel, other },
    mode: "chat",
    upstreamModel: "gpt-3.5-turbo",
    clientPath: "/v1/chat/completions",
    body: JSON.stringify(json),
    contentType: "application/json",
    stream: json.stream === true,
    json,
  }) as Exclude<ReturnType<typeof aiproxyLibrary.buildRequest>, Promise<unknown>>;
}

const REFS =
  "\n\n参考文档：\n- [知识库使用指南](https://docs.aiproxy.io/library/guide)\n- [上传文档](https://docs.aiproxy.io/library/upload)";

describe("AI Proxy knowledge base adapter", () => {
  it("asks the channel's library with the key in Api-Key", () => {
    const req = build({ model: "gpt-3.5-turbo", messages: [{ role: "user", content: "怎么上传文档？" }] });
    expect(req.url).toBe("https://api.aiproxy.io/api/library/ask");
    expect(req.headers["Api-Key"]).toBe("ap-key");
    expect(JSON.parse(String(req.body))).toEqual({ model: "gpt-3.5-turbo", query: "怎么上传文档？", libraryId: "lib-42", stream: false });
  });

  it("needs the library id in the channel's other field", () => {
    expect(() => build({ model: "m", messages: [{ role: "user", content: "x" }] }, " ")).toThrow(/knowledge base id/);
  });

  it("appends the documents to the answer as references", () => {
    const req = build({ model: "m", messages: [{ role: "user", content: "x" }] });
    const out = JSON.parse(req.response!.json(JSON.parse(fixture("answer.json"))).body);
    expect(out.choices[0].message.content).toBe(`在 AI Proxy 控制台的知识库页面上传文档即可。${REFS}`);
    expect(out.usage).toBeUndefined();
  });

  it("turns success: false into OpenAI's error", () => {
    const req = build({ model: "m", messages: [{ role: "user", content: "x" }] });
    expect(JSON.parse(req.response!.json(JSON.parse(fixture("error.json"))).body)).toEqual({
      error: { message: "知识库不存在", type: "upstream_error", param: null, code: 10003 },
    });
  });

  it("streams the content and the references on the finishing event", () => {
    const req = build({ model: "m", stream: true, messages: [{ role: "user", content: "x" }] });
    const chunks = fixture("stream.sse.txt")
      .split("\n")
      .filter((l) => l.startsWith("data: "))
      .map((l) => req.response!.streamEvent!(JSON.parse(l.slice(6))))
      .filter((c) => c !== null) as Record<string, any>[];
    expect(chunks.map((c) => c.choices[0].delta.content).join("")).toBe(`在 AI Proxy 控制台的知识库页面上传文档即可。${REFS}`);
    expect(chunks.at(-1)!.choices[0].finish_reason).toBe("stop");
  });
});

describe("AI Proxy knowledge base stream events the converter does not know", () => {
  it("are counted, and the stream still ends with the references", () => {
    const req = build({ model: "m", stream: true, messages: [{ role: "user", content: "x" }] }) as UpstreamRequest;
    const before = unknownEventCounts().get("aiproxy-library:no-content") ?? 0;
    const r = replayStream(req, `data: {"model":"gpt-3.5-turbo","progress":0.5}\n\n${fixture("stream.sse.txt")}`);
    expect(unknownEventCounts().get("aiproxy-library:no-content")).toBe(before + 1);
    expect(r.text).toBe(`在 AI Proxy 控制台的知识库页面上传文档即可。${REFS}`);
    expect(r.finishReason).toBe("stop");
    expect(r.out.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("the recorded events fit the event schema", () => {
    for (const l of fixture("stream.sse.txt")
      .split("\n")
      .filter((l) => l.startsWith("data: ")))
      expect(LibraryStreamEvent.safeParse(JSON.parse(l.slice(6))).success).toBe(true);
  });
});
