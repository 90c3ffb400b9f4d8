// Limits and parameters translated on the way up, through the real Node entry with the official
// clients as callers: a coding agent's max_tokens (Claude Code asks 64 000–128 000) reaches an
// OpenAI model within its output limit and under the parameter name the model takes, a channel's
// own limit wins over the model facts, and a Gemini caller's topK reaches only vendors that take
// it (named in `x-qiao-dropped` where it was left out). Each call is billed once.
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { type AnthropicMock, startAnthropicMock } from "@/tests/mocks/anthropic";
import { type OpenAIMock, startOpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const CLAUDE = "claude-sonnet-4-5-20250929";
const OPENAI_MODELS = ["gpt-4o", "o3", "gpt-5"];
/** Served by its own channel, whose output_limits lower the model's 32 768. */
const LIMITED = "gpt-4.1";

type Json = Record<string, unknown>;

async function logsOf(userId: number) {
  return (await getDb()).log.findMany({ where: { user_id: userId, type: 2 }, orderBy: { id: "asc" } });
}

describe("limits and parameters on converted calls", () => {
  let relay: RelayServer;
  let openai: OpenAIMock;
  let claude: AnthropicMock;
  let user: Awaited<ReturnType<typeof seedUser>>;

  beforeAll(async () => {
    openai = await startOpenAIMock({ apiKey: "sk-openai-limits" });
    claude = await startAnthropicMock({ apiKey: "sk-ant-limits" });
    relay = await startRelay("node");
    await updateOption("ModelRatio", JSON.stringify(Object.fromEntries([...OPENAI_MODELS, LIMITED, CLAUDE].map((m) => [m, 1]))));
  });
  afterAll(async () => {
    await relay.close();
    await openai.close();
    await claude.close();
  });
  beforeEach(async () => {
    openai.reset();
    claude.reset();
    await clearRelayData();
    await updateOption("RetryTimes", "0");
    // Holds for 128 000 output tokens must fit.
    user = await seedUser({ quota: 1_000_000_000 });
    await seedChannel({ type: 1, base_url: openai.url, models: OPENAI_MODELS.join(","), key: "sk-openai-limits" });
    await seedChannel({
      type: 1,
      base_url: openai.url,
      models: LIMITED,
      key: "sk-openai-limits",
      output_limits: JSON.stringify({ [LIMITED]: 4000 }),
    });
    await seedChannel({ type: 14, base_url: claude.url, models: CLAUDE, key: "sk-ant-limits" });
  });

  /** One Anthropic SDK turn of `model` asking 128 000 tokens: the OpenAI request it became. */
  async function claudeCodeTurn(model: string): Promise<Json> {
    const client = new Anthropic({ apiKey: user.key, baseURL: relay.url, maxRetries: 0 });
    // Streamed, as Claude Code asks (the SDK refuses a whole answer this long).
    const msg = await client.messages.stream({ model, max_tokens: 128_000, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    expect(msg.content).toMatchObject([{ type: "text", text: "Hello! How can I help you today?" }]);
    return openai.requests.at(-1)!.json as Json;
  }

  it("clamps an Anthropic caller's max_tokens 128000 to gpt-4o's 16384, billed once", async () => {
    const before = await user.quota();
    const sent = await claudeCodeTurn("gpt-4o");
    expect(sent.max_tokens).toBe(16_384);
    expect(sent).not.toHaveProperty("max_completion_tokens");
    await settleAll();
    const logs = await logsOf(user.id);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ model_name: "gpt-4o" });
    expect(logs[0]!.quota).toBeGreaterThan(0);
    expect(before - (await user.quota())).toBe(BigInt(logs[0]!.quota));
  });

  it("sends o3 and gpt-5 max_completion_tokens within their limits, never max_tokens", async () => {
    const o3 = await claudeCodeTurn("o3");
    expect(o3.max_completion_tokens).toBe(100_000);
    expect(o3).not.toHaveProperty("max_tokens");
    const gpt5 = await claudeCodeTurn("gpt-5");
    expect(gpt5.max_completion_tokens).toBe(128_000);
    expect(gpt5).not.toHaveProperty("max_tokens");
  });

  it("takes the channel's own output limit over the model's", async () => {
    const sent = await claudeCodeTurn(LIMITED);
    expect(sent.max_tokens).toBe(4000);
  });

  it("leaves a Gemini caller's topK out for OpenAI and names it; its JSON schema becomes response_format; billed once", async () => {
    const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
    const genai = new GoogleGenAI({ apiKey: user.key, httpOptions: { baseUrl: relay.url } });
    const before = await user.quota();
    const answer = await genai.models.generateContent({
      model: "gpt-4o",
      contents: "answer in JSON",
      config: { topK: 40, temperature: 0.2, responseMimeType: "application/json", responseJsonSchema: schema },
    });
    expect(answer.text).toBe("Hello! How can I help you today?");
    expect(answer.sdkHttpResponse?.headers?.["x-qiao-dropped"]).toBe("top_k");
    const sent = openai.requests.at(-1)!.json as Json;
    expect(sent).not.toHaveProperty("top_k");
    expect(sent).toMatchObject({
      temperature: 0.2,
      response_format: { type: "json_schema", json_schema: { name: "response", schema } },
    });
    await settleAll();
    const logs = await logsOf(user.id);
    expect(logs).toHaveLength(1);
    expect(JSON.parse(logs[0]!.other)).toMatchObject({ dropped: ["top_k"] });
    expect(before - (await user.quota())).toBe(BigInt(logs[0]!.quota));
  });

  it("keeps a Gemini caller's topK for Claude, which takes top_k", async () => {
    const genai = new GoogleGenAI({ apiKey: user.key, httpOptions: { baseUrl: relay.url } });
    const answer = await genai.models.generateContent({ model: CLAUDE, contents: "hi", config: { topK: 40, maxOutputTokens: 100 } });
    expect(answer.text).toBeTruthy();
    expect(claude.requests.at(-1)!.json).toMatchObject({ model: CLAUDE, top_k: 40, max_tokens: 100 });
    expect(answer.sdkHttpResponse?.headers?.["x-qiao-dropped"] ?? "").not.toContain("top_k");
    await settleAll();
    expect(await logsOf(user.id)).toHaveLength(1);
  });
});
