// Callers of one vendor's protocol on another vendor's channel, through the real Node entry with
// the official clients: the request is decoded into the canonical one, converted for the channel's
// vendor, and the vendor's answer comes back in the caller's protocol, billed from the vendor's
// usage. Anthropic's SDK on a Gemini channel, Google's on a Claude channel, OpenAI's Responses on
// a Claude channel: two conversions each way, with nothing of OpenAI's protocol on the wire.
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { type AnthropicMock, CLAUDE_TEXT, CLAUDE_USAGE, startAnthropicMock } from "@/tests/mocks/anthropic";
import { type GoogleMock, startGoogleMock } from "@/tests/mocks/gemini";
import { clearRelayData, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const GEMINI = "gemini-2.0-flash";
const CLAUDE = "claude-3-5-sonnet-20241022";

async function lastLog(userId: number) {
  return (await getDb()).log.findFirstOrThrow({ where: { user_id: userId, type: 2 }, orderBy: { id: "desc" } });
}

describe("callers of one protocol on another vendor's channel", () => {
  let relay: RelayServer;
  let google: GoogleMock;
  let claude: AnthropicMock;
  let user: Awaited<ReturnType<typeof seedUser>>;

  beforeAll(async () => {
    google = await startGoogleMock({ apiKey: "AIza-cross" });
    claude = await startAnthropicMock({ apiKey: "sk-ant-cross" });
    relay = await startRelay("node");
    await updateOption("ModelRatio", JSON.stringify({ [GEMINI]: 1, [CLAUDE]: 2 }));
  });
  afterAll(async () => {
    await relay.close();
    await google.close();
    await claude.close();
  });
  beforeEach(async () => {
    google.reset();
    claude.reset();
    await clearRelayData();
    await updateOption("RetryTimes", "0");
    user = await seedUser();
    await seedChannel({ type: 24, base_url: google.url, models: GEMINI, key: "AIza-cross" });
    await seedChannel({ type: 14, base_url: claude.url, models: CLAUDE, key: "sk-ant-cross" });
  });

  it("refuses in the caller's shape, charging nothing, a body the decoder cannot read when the channel converts", async () => {
    const before = await user.quota();
    const res = await fetch(`${relay.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": user.key, "content-type": "application/json" },
      body: JSON.stringify({ model: GEMINI, max_tokens: 50, messages: [{ role: "user", content: [{ type: "future_block_2030" }] }] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", message: expect.stringMatching(/messages\.0\.content\.0/) },
    });
    expect(google.requests).toHaveLength(0);
    await settleAll();
    expect(await user.quota()).toBe(before);
  });

  it("serves Anthropic's SDK from Gemini: Google's request upstream, Anthropic's message back", async () => {
    const client = new Anthropic({ apiKey: user.key, baseURL: relay.url, maxRetries: 0 });
    const msg = await client.messages.create({
      model: GEMINI,
      max_tokens: 100,
      system: "Be brief.",
      messages: [{ role: "user", content: "hi" }],
    });
    const sent = google.requests.at(-1)!;
    expect(sent.path).toBe(`/v1beta/models/${GEMINI}:generateContent`);
    expect(sent.json).toMatchObject({
      systemInstruction: { parts: [{ text: "Be brief." }] },
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
      generationConfig: { maxOutputTokens: 100 },
    });
    expect(msg.type).toBe("message");
    expect(
      msg.content
        .filter((b) => b.type === "text")
        .map((b) => (b as { text: string }).text)
        .join(""),
    ).toBe("Hello! How can I help you today?");
    expect(msg.stop_reason).toBe("end_turn");
    await settleAll();
    // Gemini's usage: 11 prompt tokens (4 of them cached), 9 answer + 21 thinking tokens.
    expect(await lastLog(user.id)).toMatchObject({ model_name: GEMINI, prompt_tokens: 11, completion_tokens: 30 });
  });

  it("streams Gemini's function calls to Anthropic's SDK as tool_use blocks", async () => {
    const client = new Anthropic({ apiKey: user.key, baseURL: relay.url, maxRetries: 0 });
    const final = await client.messages
      .stream({
        model: GEMINI,
        max_tokens: 100,
        messages: [{ role: "user", content: "weather and time in Paris?" }],
        tools: [
          { name: "get_weather", input_schema: { type: "object", properties: { city: { type: "string" } } } },
          { name: "get_time", input_schema: { type: "object", properties: { tz: { type: "string" } } } },
        ],
      })
      .finalMessage();
    expect(google.requests.at(-1)!.path).toBe(`/v1beta/models/${GEMINI}:streamGenerateContent`);
    const tools = final.content.filter((b) => b.type === "tool_use");
    expect(tools).toMatchObject([
      { name: "get_weather", input: { city: "Paris", unit: "celsius" } },
      { name: "get_time", input: { tz: "Europe/Paris" } },
    ]);
    expect(final.stop_reason).toBe("tool_use");
    await settleAll();
    expect(await lastLog(user.id)).toMatchObject({ model_name: GEMINI, is_stream: true, prompt_tokens: 57, completion_tokens: 24 });
  });

  it("serves Google's SDK from Claude: Anthropic's request upstream, Gemini's answer back, streamed too", async () => {
    const genai = new GoogleGenAI({ apiKey: user.key, httpOptions: { baseUrl: relay.url } });
    const whole = await genai.models.generateContent({
      model: CLAUDE,
      contents: "hi",
      config: { systemInstruction: "Be brief.", maxOutputTokens: 64 },
    });
    const sent = claude.requests.at(-1)!;
    expect(sent.path).toBe("/v1/messages");
    expect(sent.headers["x-api-key"]).toBe("sk-ant-cross");
    expect(sent.json).toMatchObject({ model: CLAUDE, system: "Be brief.", max_tokens: 64, messages: [{ role: "user" }] });
    expect(whole.text).toBe(CLAUDE_TEXT);
    expect(whole.usageMetadata?.candidatesTokenCount).toBe(CLAUDE_USAGE.output_tokens);
    await settleAll();
    const prompt = CLAUDE_USAGE.input_tokens + CLAUDE_USAGE.cache_read_input_tokens + CLAUDE_USAGE.cache_creation_input_tokens;
    expect(await lastLog(user.id)).toMatchObject({
      model_name: CLAUDE,
      prompt_tokens: prompt,
      completion_tokens: CLAUDE_USAGE.output_tokens,
    });

    let streamed = "";
    for await (const chunk of await genai.models.generateContentStream({ model: CLAUDE, contents: "hi" })) streamed += chunk.text ?? "";
    expect(streamed).toBe(CLAUDE_TEXT);
    expect(claude.requests.at(-1)!.json.stream).toBe(true);
  });

  it("serves OpenAI's Responses API from Claude, whole and streamed", async () => {
    const client = new OpenAI({ apiKey: user.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
    const response = await client.responses.create({ model: CLAUDE, instructions: "Be brief.", input: "hi", max_output_tokens: 64 });
    expect(claude.requests.at(-1)!.json).toMatchObject({ system: "Be brief.", max_tokens: 64 });
    expect(response.output_text).toBe(CLAUDE_TEXT);
    expect(response.usage?.output_tokens).toBe(CLAUDE_USAGE.output_tokens);

    const stream = client.responses.stream({ model: CLAUDE, input: "hi" });
    const final = await stream.finalResponse();
    expect(final.status).toBe("completed");
    expect(final.output_text).toBe(CLAUDE_TEXT);
    await settleAll();
    expect(await lastLog(user.id)).toMatchObject({ model_name: CLAUDE, is_stream: true, completion_tokens: CLAUDE_USAGE.output_tokens });
  });
});
