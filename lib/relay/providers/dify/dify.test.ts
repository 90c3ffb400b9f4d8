import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ChannelConfig } from "../../types";
import { dify } from ".";
import { replayStream } from "@/tests/helpers/vendor-stream";
import type { UpstreamRequest } from "../types";
import { unknownEventCounts } from "../unknown-events";
import { DifyStreamEvent } from "./api";

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8");
const events = (sse: string) =>
  sse
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)));

const channel: ChannelConfig = {
  id: 9,
  type: 37,
  name: "dify",
  key: "app-key",
  base_url: "https://dify.example/v1",
  other: "",
  openai_organization: "",
  model_mapping: {},
  status_code_mapping: {},
  auto_ban: true,
};

function build(json: Record<string, unknown>) {
  return dify.buildRequest({
    channel,
    mode: "chat",
    upstreamModel: "dify-app",
    clientPath: "/v1/chat/completions",
    body: JSON.stringify(json),
    contentType: "application/json",
    stream: json.stream === true,
    json,
  }) as Exclude<ReturnType<typeof dify.buildRequest>, Promise<unknown>>;
}

const run = (req: ReturnType<typeof build>, sse: string) =>
  events(sse)
    .map((e) => req.response!.streamEvent!(e))
    .filter((c) => c !== null) as Record<string, any>[];

describe("Dify adapter", () => {
  it("folds the conversation into one query and sends images as remote-url files", () => {
    const req = build({
      model: "dify-app",
      user: "u-1",
      messages: [
        { role: "system", content: "Be kind." },
        { role: "user", content: "Hi" },
        { role: "assistant", content: "Hello" },
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: "https://x.test/cat.png" } },
          ],
        },
      ],
    });
    expect(req.url).toBe("https://dify.example/v1/chat-messages");
    expect(req.headers.Authorization).toBe("Bearer app-key");
    expect(JSON.parse(String(req.body))).toEqual({
      inputs: {},
      query: "SYSTEM: Be kind.\nUSER: Hi\nASSISTANT: Hello\nUSER: What is this?",
      response_mode: "blocking",
      user: "u-1",
      files: [{ type: "image", transfer_method: "remote_url", url: "https://x.test/cat.png" }],
    });
  });

  it("sends a lone question as it is, streaming, with the default user", () => {
    const body = JSON.parse(String(build({ model: "m", stream: true, messages: [{ role: "user", content: "Hi" }] }).body));
    expect(body).toEqual({ inputs: {}, query: "Hi", response_mode: "streaming", user: "api-user" });
  });

  it("refuses inline (data:) images: Dify takes them by URL", () => {
    expect(() =>
      build({
        model: "m",
        messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] }],
      }),
    ).toThrow(/http\(s\) URL/);
  });

  it("converts a blocking answer with Dify's usage", () => {
    const req = build({ model: "m", messages: [{ role: "user", content: "Hi" }] });
    const out = JSON.parse(req.response!.json(JSON.parse(fixture("blocking.json"))).body);
    expect(out).toMatchObject({
      choices: [
        { message: { role: "assistant", content: "Dify apps answer from their own prompt and knowledge." }, finish_reason: "stop" },
      ],
      usage: { prompt_tokens: 1033, completion_tokens: 128, total_tokens: 1161 },
    });
  });

  it("converts the stream: message events as content, message_end with usage, the rest dropped", () => {
    const chunks = run(build({ model: "m", stream: true, messages: [{ role: "user", content: "Hi" }] }), fixture("stream.sse.txt"));
    expect(chunks.map((c) => c.choices[0].delta.content ?? null)).toEqual([
      "Dify apps answer",
      " from their own prompt and knowledge.",
      null,
    ]);
    expect(chunks[0]!.choices[0].delta.role).toBe("assistant");
    expect(chunks.at(-1)).toMatchObject({ choices: [{ finish_reason: "stop" }], usage: { prompt_tokens: 1033, completion_tokens: 135 } });
  });

  it("an agent app's closing message does not repeat the answer; its image file is shown", () => {
    const chunks = run(build({ model: "m", stream: true, messages: [{ role: "user", content: "cat" }] }), fixture("agent.sse.txt"));
    const text = chunks.map((c) => c.choices[0].delta.content ?? "").join("");
    expect(text).toBe("Here is a cat.\n![image](https://upload.dify.ai/files/cat.png)\n");
    expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: 220, completion_tokens: 31 });
  });

  it("an agent's tool rounds become reasoning_content, each piece once; the answer stays content", () => {
    const chunks = run(
      build({ model: "m", stream: true, messages: [{ role: "user", content: "weather" }] }),
      fixture("agent-thought.sse.txt"),
    );
    expect(chunks.map((c) => c.choices[0].delta.reasoning_content ?? "").join("")).toBe(
      'The user asks about Paris weather; I will call the weather tool.\n→ weather {"weather": {"city": "Paris"}}\n← {"weather": "18°C, cloudy"}\n',
    );
    expect(chunks[0]!.choices[0].delta.role).toBe("assistant");
    expect(chunks.map((c) => c.choices[0].delta.content ?? "").join("")).toBe("It is 18°C and cloudy in Paris.");
    expect(chunks.at(-1)).toMatchObject({ choices: [{ finish_reason: "stop" }], usage: { prompt_tokens: 312, completion_tokens: 46 } });
  });

  it("message_replace: the replacement is appended and the stream ends as content_filter", () => {
    const chunks = run(build({ model: "m", stream: true, messages: [{ role: "user", content: "pw?" }] }), fixture("replace.sse.txt"));
    expect(chunks.map((c) => c.choices[0].delta.content ?? "").join("")).toBe(
      "The admin password is hunter2\n\nSorry, I can't share that.",
    );
    expect(chunks.at(-1)).toMatchObject({
      choices: [{ finish_reason: "content_filter" }],
      usage: { prompt_tokens: 40, completion_tokens: 9 },
    });
  });

  it("turns an error event into OpenAI's error", () => {
    const chunks = run(build({ model: "m", stream: true, messages: [{ role: "user", content: "Hi" }] }), fixture("stream-error.sse.txt"));
    expect(chunks.at(-1)).toEqual({
      error: {
        message: "Your quota for Dify Hosted Model Provider has been exhausted.",
        type: "upstream_error",
        param: null,
        code: "provider_quota_exceeded",
      },
    });
  });
});

describe("Dify stream events the converter does not know", () => {
  it("are counted, and the stream still ends with its finish and usage", () => {
    const req = build({ model: "m", stream: true, messages: [{ role: "user", content: "Hi" }] }) as UpstreamRequest;
    const before = unknownEventCounts().get("dify:workflow_paused") ?? 0;
    const r = replayStream(req, `data: {"event":"workflow_paused","task_id":"t"}\n\n${fixture("stream.sse.txt")}`);
    expect(unknownEventCounts().get("dify:workflow_paused")).toBe(before + 1);
    expect(r.text).toBe("Dify apps answer from their own prompt and knowledge.");
    expect(r.finishReason).toBe("stop");
    expect(r.usage).toMatchObject({ prompt_tokens: 1033, completion_tokens: 135 });
    expect(r.out.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("the recorded events fit the event schema, and the known skipped ones are not counted", () => {
    const before = [...unknownEventCounts()].filter(([k]) => k.startsWith("dify:")).length;
    for (const name of ["stream.sse.txt", "agent.sse.txt", "agent-thought.sse.txt", "replace.sse.txt", "stream-error.sse.txt"]) {
      const req = build({ model: "m", stream: true, messages: [{ role: "user", content: "Hi" }] });
      for (const e of events(fixture(name))) {
        expect(DifyStreamEvent.safeParse(e).success).toBe(true);
        req.response!.streamEvent!(e);
      }
    }
    expect([...unknownEventCounts()].filter(([k]) => k.startsWith("dify:")).length).toBe(before);
  });
});
