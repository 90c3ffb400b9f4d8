// The vendor request checks refuse what each vendor refuses and take what it takes: a check that
// let everything through would make the replay grid green for nothing.
import { describe, expect, it } from "vitest";
import { vendorRequestProblems } from "./vendor-requests";

const chat = { model: "gpt-4.1", messages: [{ role: "user", content: "hi" }] };
const claude = { model: "claude-sonnet-4-5", max_tokens: 1000, messages: [{ role: "user", content: "hi" }] };
const gemini = { contents: [{ role: "user", parts: [{ text: "hi" }] }] };

describe("OpenAI chat completions", () => {
  it("takes a documented body, tools and streaming included", () => {
    const body = {
      ...chat,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: [{ type: "text", text: "hi" }] },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "read", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "call_1", content: "file text" },
      ],
      tools: [{ type: "function", function: { name: "read", parameters: { type: "object" } } }],
      tool_choice: "auto",
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 1000,
    };
    expect(vendorRequestProblems("openai-chat", body, "gpt-4.1")).toEqual([]);
  });

  it("refuses members OpenAI does not know, at the top level and in messages", () => {
    expect(vendorRequestProblems("openai-chat", { ...chat, top_k: 40 }, "gpt-4.1")).toEqual(['(body): Unrecognized key: "top_k"']);
    const cached = { ...chat, messages: [{ role: "user", content: "hi", cache_control: { type: "ephemeral" } }] };
    expect(vendorRequestProblems("openai-chat", cached, "gpt-4.1")).not.toEqual([]);
  });

  it("refuses both budget members at once, max_tokens for a reasoning model, and a budget above the model's limit", () => {
    expect(vendorRequestProblems("openai-chat", { ...chat, max_tokens: 10, max_completion_tokens: 10 }, "gpt-4.1")).toEqual([
      "(body): max_tokens and max_completion_tokens are both set",
    ]);
    expect(vendorRequestProblems("openai-chat", { ...chat, model: "gpt-5", max_tokens: 100 }, "gpt-5")).toEqual([
      "max_tokens: gpt-5 refuses it (it takes max_completion_tokens)",
    ]);
    expect(vendorRequestProblems("openai-chat", { ...chat, model: "gpt-5", max_completion_tokens: 100 }, "gpt-5")).toEqual([]);
    expect(vendorRequestProblems("openai-chat", { ...chat, max_tokens: 128_000 }, "gpt-4.1")).toEqual([
      "max_tokens: 128000 is above gpt-4.1's output limit of 32768",
    ]);
  });
});

describe("Anthropic Messages", () => {
  it("takes a documented body: system blocks, tools, tool results, thinking", () => {
    const body = {
      ...claude,
      system: [{ type: "text", text: "Be brief." }],
      messages: [
        { role: "user", content: "read it" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Read", input: { path: "a" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "text" }] },
      ],
      tools: [{ name: "Read", description: "Reads", input_schema: { type: "object", properties: {} } }],
      thinking: { type: "enabled", budget_tokens: 2048 },
      stream: true,
    };
    expect(vendorRequestProblems("anthropic", body, "claude-sonnet-4-5")).toEqual([]);
  });

  it("refuses a system role inside messages, a beta-only tool member, a missing max_tokens, an empty text block", () => {
    const system = { ...claude, messages: [...claude.messages, { role: "system", content: "later" }] };
    expect(vendorRequestProblems("anthropic", system, "claude-sonnet-4-5").join()).toMatch(/^messages\.1\.role/);
    const deferred = { ...claude, tools: [{ name: "Read", input_schema: { type: "object" }, defer_loading: true }] };
    expect(vendorRequestProblems("anthropic", deferred, "claude-sonnet-4-5")).not.toEqual([]);
    const { max_tokens: _, ...noBudget } = claude;
    expect(vendorRequestProblems("anthropic", noBudget, "claude-sonnet-4-5").join()).toMatch(/^max_tokens/);
    const empty = { ...claude, messages: [{ role: "user", content: [{ type: "text", text: "" }] }] };
    expect(vendorRequestProblems("anthropic", empty, "claude-sonnet-4-5")).not.toEqual([]);
  });

  it("refuses max_tokens above the model's output limit", () => {
    expect(vendorRequestProblems("anthropic", { ...claude, max_tokens: 128_000 }, "claude-sonnet-4-5")).toEqual([
      "max_tokens: 128000 is above claude-sonnet-4-5's output limit of 64000",
    ]);
  });
});

describe("Gemini generateContent", () => {
  it("takes a documented body: system instruction, function declarations and calls, generation config", () => {
    const body = {
      contents: [
        { role: "user", parts: [{ text: "hi" }] },
        { role: "model", parts: [{ functionCall: { name: "read_file", args: {} }, thoughtSignature: "c2ln" }] },
        { role: "user", parts: [{ functionResponse: { name: "read_file", response: { output: "x" } } }] },
      ],
      systemInstruction: { parts: [{ text: "Be brief." }] },
      tools: [{ functionDeclarations: [{ name: "read_file", parametersJsonSchema: { type: "object" } }] }],
      generationConfig: {
        temperature: 1,
        topK: 64,
        maxOutputTokens: 1000,
        thinkingConfig: { includeThoughts: true, thinkingLevel: "HIGH" },
      },
    };
    expect(vendorRequestProblems("gemini", body, "gemini-2.5-pro")).toEqual([]);
  });

  it("refuses unknown members, a system role, a part with two kinds of data, a schema without its MIME type", () => {
    expect(vendorRequestProblems("gemini", { ...gemini, generationConfig: { top_k: 4 } }, "gemini-2.5-pro")).not.toEqual([]);
    const system = { contents: [{ role: "system", parts: [{ text: "x" }] }] };
    expect(vendorRequestProblems("gemini", system, "gemini-2.5-pro").join()).toMatch(/^contents\.0\.role/);
    const twoKinds = { contents: [{ role: "user", parts: [{ text: "x", inlineData: { mimeType: "image/png", data: "AA" } }] }] };
    expect(vendorRequestProblems("gemini", twoKinds, "gemini-2.5-pro")).not.toEqual([]);
    const schema = { ...gemini, generationConfig: { responseJsonSchema: { type: "object" } } };
    expect(vendorRequestProblems("gemini", schema, "gemini-2.5-pro")).toEqual([
      "generationConfig: responseJsonSchema without responseMimeType",
    ]);
  });

  it("refuses maxOutputTokens above the model's output limit", () => {
    expect(vendorRequestProblems("gemini", { ...gemini, generationConfig: { maxOutputTokens: 128_000 } }, "gemini-2.5-pro")).toEqual([
      "generationConfig.maxOutputTokens: 128000 is above gemini-2.5-pro's output limit of 65536",
    ]);
  });
});
