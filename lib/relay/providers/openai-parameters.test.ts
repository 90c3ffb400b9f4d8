import { describe, expect, it } from "vitest";
import { toChannelConfig } from "../memory/channel";
import { getProvider } from "./index";
import { isOpenAIReasoningModel } from "./openai-parameters";
import { channelOutputLimit, withinOutputLimit } from "./output-limit";
import type { BuildRequestInput } from "./types";

const dec = new TextDecoder();

/** The body an OpenAI-protocol channel of `type` sends for `body` asked of `model`. */
/** `converted`: the body came from another caller protocol (the relay's Anthropic, Gemini, Responses callers). */
function sent(type: number, model: string, body: Record<string, unknown>, outputLimits = "", parsed = false, converted = true) {
  const full = { model, messages: [{ role: "user", content: "hi" }], ...body };
  const input: BuildRequestInput = {
    channel: toChannelConfig({
      id: 1,
      type,
      key: "sk-up",
      base_url: "https://up.example",
      other: "2024-10-21",
      output_limits: outputLimits,
    }),
    mode: "chat",
    upstreamModel: model,
    clientPath: "/v1/chat/completions",
    body: JSON.stringify(full),
    contentType: "application/json",
    stream: false,
    converted,
    // The relay hands adapters the body it already parsed.
    ...(parsed ? { json: full } : {}),
  };
  const r = getProvider(type)!.buildRequest(input);
  if (r instanceof Promise) throw new Error("OpenAI-protocol adapters build synchronously");
  const json = JSON.parse(typeof r.body === "string" ? r.body : dec.decode(r.body)) as Record<string, unknown>;
  delete json.model;
  delete json.messages;
  return { json, dropped: r.dropped ?? [] };
}

const OPENAI = 1;
const AZURE = 3;
const DEEPSEEK = 43;

describe("OpenAI parameters", () => {
  it("clamps max_tokens to the model's output limit (gpt-4o refuses more than 16384)", () => {
    expect(sent(OPENAI, "gpt-4o", { max_tokens: 128_000 }).json).toEqual({ max_tokens: 16_384 });
    expect(sent(OPENAI, "gpt-4o", { max_tokens: 1000 }).json).toEqual({ max_tokens: 1000 });
    expect(sent(OPENAI, "gpt-4.1-mini", { max_completion_tokens: 50_000 }).json).toEqual({ max_completion_tokens: 32_768 });
    expect(sent(DEEPSEEK, "deepseek-chat", { max_tokens: 64_000 }).json).toEqual({ max_tokens: 8192 });
    // A model the table does not know is left as asked.
    expect(sent(OPENAI, "ft:my-model", { max_tokens: 128_000 }).json).toEqual({ max_tokens: 128_000 });
  });

  it("sends max_completion_tokens to o-series and gpt-5, never max_tokens; gpt-5-chat keeps max_tokens", () => {
    expect(sent(OPENAI, "o3", { max_tokens: 128_000 }).json).toEqual({ max_completion_tokens: 100_000 });
    expect(sent(OPENAI, "gpt-5", { max_tokens: 128_000 }).json).toEqual({ max_completion_tokens: 128_000 });
    expect(sent(AZURE, "o4-mini", { max_tokens: 500 }).json).toEqual({ max_completion_tokens: 500 });
    expect(sent(OPENAI, "o3", { max_tokens: 10, max_completion_tokens: 200_000 }).json).toEqual({ max_completion_tokens: 100_000 });
    expect(sent(OPENAI, "gpt-5-chat-latest", { max_tokens: 128_000 }).json).toEqual({ max_tokens: 16_384 });
  });

  it("leaves out the sampling settings reasoning models refuse, and names them", () => {
    const r = sent(OPENAI, "o3", { temperature: 0.2, top_p: 0.9, reasoning_effort: "high" });
    expect(r.json).toEqual({ reasoning_effort: "high" });
    expect(r.dropped).toEqual(["temperature", "top_p"]);
    // The default value is accepted, so it stays.
    expect(sent(OPENAI, "gpt-5-mini", { temperature: 1 }).json).toEqual({ temperature: 1 });
    expect(sent(OPENAI, "gpt-4o", { temperature: 0.2 }).json).toEqual({ temperature: 0.2 });
  });

  it("sends reasoning_effort only to models that reason, in the values they take", () => {
    const plain = sent(OPENAI, "gpt-4o", { reasoning_effort: "low", top_k: 40 });
    expect(plain.json).toEqual({});
    expect(plain.dropped).toEqual(["top_k", "reasoning_effort"]);
    expect(sent(OPENAI, "o3-mini", { reasoning_effort: "none" }).json).toEqual({ reasoning_effort: "low" });
    expect(sent(OPENAI, "gpt-5", { reasoning_effort: "none" }).json).toEqual({ reasoning_effort: "minimal" });
    expect(sent(OPENAI, "gpt-5.1", { reasoning_effort: "none" }).json).toEqual({ reasoning_effort: "none" });
    // A direct OpenAI caller's parameters are its own: only the refused sampling settings go.
    expect(sent(OPENAI, "gpt-4o", { reasoning_effort: "low", top_k: 40 }, "", false, false)).toEqual({
      json: { reasoning_effort: "low", top_k: 40 },
      dropped: [],
    });
    expect(sent(OPENAI, "o3", { temperature: 0.5, max_tokens: 10 }, "", false, false)).toEqual({
      json: { max_completion_tokens: 10 },
      dropped: ["temperature"],
    });
    // A lenient vendor gets the caller's request as it asked it.
    expect(sent(DEEPSEEK, "deepseek-reasoner", { reasoning_effort: "low", top_k: 5 })).toEqual({
      json: { reasoning_effort: "low", top_k: 5 },
      dropped: [],
    });
  });

  it("names each parameter it left out once, also when the relay already parsed the body", () => {
    expect(sent(OPENAI, "gpt-4o", { top_k: 40, reasoning_effort: "high" }, "", true)).toEqual({
      json: {},
      dropped: ["top_k", "reasoning_effort"],
    });
  });

  it("takes the channel's own output limit over the model facts, exact name first, then *", () => {
    expect(sent(OPENAI, "gpt-4o", { max_tokens: 128_000 }, '{"gpt-4o": 4096}').json).toEqual({ max_tokens: 4096 });
    expect(sent(OPENAI, "o3", { max_tokens: 128_000 }, '{"*": 30000}').json).toEqual({ max_completion_tokens: 30_000 });
    expect(sent(OPENAI, "ft:my-model", { max_tokens: 9000 }, '{"*": 8192}').json).toEqual({ max_tokens: 8192 });
    const channel = toChannelConfig({ id: 1, type: 1, key: "k", output_limits: '{"gpt-4o": 2048, "*": 1000, "bad": -1, "x": "12"}' });
    expect(channel.output_limits).toEqual({ "gpt-4o": 2048, "*": 1000, x: 12 });
    expect(channelOutputLimit(channel, "gpt-4o")).toBe(2048);
    expect(channelOutputLimit(channel, "claude-sonnet-4-5")).toBe(1000);
    expect(channelOutputLimit(toChannelConfig({ id: 1, type: 1, key: "k" }), "claude-opus-4-1")).toBe(32_000);
    expect(channelOutputLimit(undefined, "gemini-3-pro-preview")).toBe(65_536);
  });

  it("clamps the canonical body of converting vendors too, by the channel's own limit where the table knows nothing", async () => {
    const channel = toChannelConfig({ id: 1, type: 34, key: "co-key", output_limits: '{"command-r-plus": 4000}' });
    const json = { model: "command-r-plus", messages: [{ role: "user", content: "hi" }], max_tokens: 128_000 };
    const built = await getProvider(34)!.buildRequest({
      channel,
      mode: "chat",
      upstreamModel: "command-r-plus",
      clientPath: "/v1/chat/completions",
      body: JSON.stringify(json),
      contentType: "application/json",
      stream: false,
      json,
    });
    expect(JSON.parse(built.body as string)).toMatchObject({ model: "command-r-plus", max_tokens: 4000 });
    // The pipeline's body is shared between attempts: it is never changed in place.
    expect(json.max_tokens).toBe(128_000);
    const fits = { max_tokens: 100 };
    expect(withinOutputLimit(fits, channel, "command-r-plus")).toBe(fits);
    expect(withinOutputLimit({ max_completion_tokens: 90_000 }, channel, "glm-4.5")).toEqual({ max_completion_tokens: 90_000 });
    expect(withinOutputLimit({ max_completion_tokens: 200_000 }, channel, "glm-4.5")).toEqual({ max_completion_tokens: 98_304 });
  });

  it("knows OpenAI's reasoning models by name", () => {
    for (const m of ["o1", "o3-mini", "o4-mini-2025-04-16", "gpt-5", "gpt-5-nano", "gpt-5.1", "openai/o3"]) {
      expect(isOpenAIReasoningModel(m), m).toBe(true);
    }
    for (const m of ["gpt-4o", "gpt-5-chat-latest", "gpt-5.1-chat-latest", "omni-moderation-latest", "gpt-4.1"]) {
      expect(isOpenAIReasoningModel(m), m).toBe(false);
    }
  });
});
