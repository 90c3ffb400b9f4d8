import { describe, expect, it } from "vitest";
import { RelayError } from "../errors";
import { checkRequestBody, requestModel } from "./request-rules";
import type { RelayMode } from "../types";

function refusal(mode: RelayMode, body: Record<string, unknown>): { status: number; param: string | null; type: string } | null {
  try {
    checkRequestBody(mode, body);
    return null;
  } catch (e) {
    if (!(e instanceof RelayError)) throw e;
    return { status: e.status, param: e.param, type: e.type };
  }
}

const chat = [{ role: "user", content: "hi" }];

describe("request rules", () => {
  it("refuse what an endpoint can never accept, naming the parameter", () => {
    const cases: [RelayMode, Record<string, unknown>, string][] = [
      ["chat", {}, "messages"],
      ["chat", { messages: "hi" }, "messages"],
      ["chat", { messages: [] }, "messages"],
      ["chat", { messages: ["hi"] }, "messages[0]"],
      ["chat", { messages: [...chat, { content: "no role" }] }, "messages[1]"],
      ["chat", { messages: chat, stream: "true" }, "stream"],
      ["chat", { messages: chat, n: 0 }, "n"],
      ["chat", { messages: chat, n: 129 }, "n"],
      ["chat", { messages: chat, n: 1e308 }, "n"],
      ["chat", { messages: chat, max_tokens: -5 }, "max_tokens"],
      ["chat", { messages: chat, max_tokens: 1e308 }, "max_tokens"],
      ["chat", { messages: chat, max_completion_tokens: "100" }, "max_completion_tokens"],
      ["completions", { prompt: "x", n: 1.5 }, "n"],
      ["completions", {}, "prompt"],
      ["completions", { prompt: 42 }, "prompt"],
      ["embeddings", {}, "input"],
      ["embeddings", { input: "" }, "input"],
      ["embeddings", { input: [] }, "input"],
      ["moderations", { input: null }, "input"],
      ["images", { prompt: "" }, "prompt"],
      ["images", { prompt: ["a cat"] }, "prompt"],
      ["images", { prompt: "a cat", n: -3 }, "n"],
      ["images", { prompt: "a cat", n: 11 }, "n"],
      ["speech", { voice: "alloy" }, "input"],
      ["rerank", { documents: ["a"] }, "query"],
      ["rerank", { query: "q", documents: [] }, "documents"],
    ];
    for (const [mode, body, param] of cases) {
      expect(refusal(mode, body), `${mode} ${JSON.stringify(body)}`).toEqual({ status: 400, param, type: "invalid_request_error" });
    }
  });

  it("accept every shape OpenAI accepts, and ignore members they do not know", () => {
    const cases: [RelayMode, Record<string, unknown>][] = [
      ["chat", { messages: chat, stream: true, stream_options: null, x_vendor: { deep: [1] } }],
      ["chat", { messages: chat, stream: null, n: null, max_tokens: null }],
      ["chat", { messages: chat, n: 128, max_tokens: 1, max_completion_tokens: 100_000 }],
      ["completions", { prompt: "x", n: 2, max_tokens: 16 }],
      ["completions", { prompt: "" }],
      ["completions", { prompt: [[1, 2, 3]] }],
      ["embeddings", { input: "hello" }],
      ["embeddings", { input: [1, 2, 3] }],
      ["moderations", { input: "" }],
      ["moderations", { input: [{ type: "text", text: "x" }] }],
      ["images", { prompt: "a cat", n: 2 }],
      ["speech", { input: "Hello", voice: "alloy" }],
      ["rerank", { query: "q", documents: ["a", { text: "b" }] }],
      ["transcriptions", {}],
    ];
    for (const [mode, body] of cases) expect(refusal(mode, body), `${mode} ${JSON.stringify(body)}`).toBeNull();
  });

  it("take the model as a non-empty string, or the endpoint's default when absent", () => {
    expect(requestModel({ model: "gpt-4o" }, "")).toBe("gpt-4o");
    expect(requestModel({}, "dall-e-2")).toBe("dall-e-2");
    expect(() => requestModel({}, "")).toThrow("缺少 model");
    for (const model of [42, "", null, ["gpt-4o"], { id: "gpt-4o" }]) {
      expect(() => requestModel({ model }, "dall-e-2")).toThrow(expect.objectContaining({ status: 400, param: "model" }));
    }
  });
});
