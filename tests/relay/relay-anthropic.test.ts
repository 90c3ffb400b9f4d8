// Anthropic's Messages API as its callers see it: the official `@anthropic-ai/sdk` client against
// both relay entries, served by an OpenAI-protocol channel on the mock OpenAI upstream.
import http from "node:http";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { MAX_BODY_BYTES } from "@/lib/relay/http";
import { decodeMessagesRequest } from "@/lib/relay/inbound/anthropic/decode-request";
import { countJsonPromptTokens } from "@/lib/relay/openai/token-count";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";
import { type OpenAIMock, startOpenAIMock } from "@/tests/mocks/openai-upstream";

const MODEL = "gpt-4o-mini";
const WEATHER_TOOL = {
  name: "get_weather",
  description: "The weather in a city",
  input_schema: { type: "object" as const, properties: { city: { type: "string" }, unit: { type: "string" } }, required: ["city"] },
};

type Obj = Record<string, unknown>;

/** The named events of an SSE body, in order, with their data. */
function sseEvents(text: string): { event: string; data: Obj }[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const lines = block.split("\n");
      const event = lines.find((l) => l.startsWith("event: "))?.slice(7) ?? "";
      const data = lines.find((l) => l.startsWith("data: "))?.slice(6) ?? "{}";
      return { event, data: JSON.parse(data) as Obj };
    });
}

/** POSTs a Messages body padded with spaces past the relay's body cap. */
function postOversized(url: string, key: string): Promise<{ status: number; body: string }> {
  const pad = Buffer.alloc(1024 * 1024, 0x20);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/v1/messages`,
      { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" } },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on("error", reject);
    let sent = 0;
    req.write('{"model":"m","max_tokens":1,"messages":[]');
    const pump = () => {
      while (sent < MAX_BODY_BYTES + 2 * pad.length) {
        sent += pad.length;
        if (!req.write(pad)) return void req.once("drain", pump);
      }
      req.end("}");
    };
    pump();
  });
}

for (const entry of ENTRIES) {
  describe(`Anthropic Messages through the ${entry} entry`, () => {
    let mock: OpenAIMock;
    let relay: RelayServer;
    let user: Awaited<ReturnType<typeof seedUser>>;
    let client: Anthropic;

    beforeAll(async () => {
      mock = await startOpenAIMock({ apiKey: "sk-upstream-key" });
      relay = await startRelay(entry);
      await updateOption("RetryTimes", "0");
    });
    afterAll(async () => {
      await relay.close();
      await mock.close();
    });
    beforeEach(async () => {
      mock.reset();
      await clearRelayData();
      await seedChannel({ base_url: mock.url, models: MODEL });
      user = await seedUser();
      client = new Anthropic({
        apiKey: user.key,
        baseURL: relay.url,
        maxRetries: 0,
        defaultHeaders: { "anthropic-beta": "prompt-caching-2024-07-31,token-efficient-tools-2025-02-19" },
      });
    });

    const consumeLogs = async () => (await getDb()).log.findMany({ where: { user_id: user.id, type: 2 }, orderBy: { id: "asc" } });

    it("answers messages.create with an Anthropic message, and bills the upstream's usage", async () => {
      const before = await user.quota();
      const msg = await client.messages.create({
        model: MODEL,
        max_tokens: 256,
        system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
        messages: [{ role: "user", content: "hi" }],
        stop_sequences: ["END"],
        metadata: { user_id: "u-42" },
        // Sampling parameters this SDK version's types no longer list; the API still takes them.
        ...({ temperature: 0.2, top_k: 5 } as object),
      });
      expect(msg).toMatchObject({
        type: "message",
        role: "assistant",
        model: MODEL,
        content: [{ type: "text", text: "Hello! How can I help you today?" }],
        stop_reason: "end_turn",
        stop_sequence: null,
      });
      expect(msg.id).toMatch(/^msg_/);
      // The canonical body the OpenAI-protocol channel received.
      const sent = mock.requests.at(-1)!.json as Obj;
      expect(sent).toMatchObject({
        model: MODEL,
        max_tokens: 256,
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "hi" },
        ],
        temperature: 0.2,
        stop: ["END"],
        user: "u-42",
      });
      // OpenAI has no top_k (it refuses the field): left out of the converted request.
      expect(sent).not.toHaveProperty("top_k");
      expect(sent.system).toBeUndefined();
      await settleAll();
      const [log] = await consumeLogs();
      expect(log).toMatchObject({ model_name: MODEL, is_stream: false, prompt_tokens: msg.usage.input_tokens });
      expect(log!.completion_tokens).toBe(msg.usage.output_tokens);
      expect(msg.usage.cache_read_input_tokens).toBe(0);
      expect(log!.quota).toBeGreaterThan(0n);
      expect(before - (await user.quota())).toBe(log!.quota);
    });

    it("charges what /v1/chat/completions charges for the same usage", async () => {
      const messages = [{ role: "user" as const, content: "what is the capital of France?" }];
      await client.messages.create({ model: MODEL, max_tokens: 100, messages });
      const openai = new OpenAI({ apiKey: user.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
      await openai.chat.completions.create({ model: MODEL, max_tokens: 100, messages });
      // The upstream saw the same canonical body both times.
      expect(mock.requests[0]!.json).toEqual(mock.requests[1]!.json);
      await settleAll();
      const [viaAnthropic, viaOpenAI] = await consumeLogs();
      expect(viaAnthropic!.prompt_tokens).toBe(viaOpenAI!.prompt_tokens);
      expect(viaAnthropic!.completion_tokens).toBe(viaOpenAI!.completion_tokens);
      expect(viaAnthropic!.quota).toBe(viaOpenAI!.quota);
      expect(viaAnthropic!.quota).toBeGreaterThan(0n);
    });

    it("reports cache reads apart from input_tokens, as Anthropic does", async () => {
      mock.setBehaviour({ usage: { prompt_tokens: 120, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 100 } } });
      const msg = await client.messages.create({ model: MODEL, max_tokens: 50, messages: [{ role: "user", content: "hi" }] });
      expect(msg.usage).toMatchObject({ input_tokens: 20, cache_read_input_tokens: 100, output_tokens: 9 });
      await settleAll();
      const [log] = await consumeLogs();
      expect(log!.prompt_tokens).toBe(120);
    });

    it("reports the usage it bills when the upstream reports none, whole and streamed", async () => {
      mock.setBehaviour({ omitUsage: true, content: "one two three four" });
      const whole = await client.messages.create({ model: MODEL, max_tokens: 50, messages: [{ role: "user", content: "hi" }] });
      const streamed = await client.messages
        .stream({ model: MODEL, max_tokens: 50, messages: [{ role: "user", content: "hi" }] })
        .finalMessage();
      await settleAll();
      const logs = await consumeLogs();
      expect(logs).toHaveLength(2);
      for (const [msg, log] of [
        [whole, logs[0]!],
        [streamed, logs[1]!],
      ] as const) {
        expect(msg.usage.output_tokens).toBe(4);
        expect(log.completion_tokens).toBe(4);
        expect(msg.usage.input_tokens).toBeGreaterThan(0);
        expect(msg.usage.input_tokens).toBe(log.prompt_tokens);
      }
    });

    it("streams text with messages.stream in Anthropic's event order", async () => {
      const stream = client.messages.stream({ model: MODEL, max_tokens: 64, messages: [{ role: "user", content: "hi" }] });
      let text = "";
      stream.on("text", (delta) => {
        text += delta;
      });
      const final = await stream.finalMessage();
      expect(text).toBe("Hello! How can I help you today?");
      expect(final.content).toEqual([{ type: "text", text: "Hello! How can I help you today?" }]);
      expect(final.stop_reason).toBe("end_turn");
      await settleAll();
      const [log] = await consumeLogs();
      expect(log!.is_stream).toBe(true);
      expect(final.usage.output_tokens).toBe(log!.completion_tokens);
      expect(final.usage.input_tokens).toBe(log!.prompt_tokens);
      expect(JSON.parse(log!.other)).toMatchObject({ stream_end: "done", upstream_usage: true });
    });

    it("names every event, message_delta after the last block and before message_stop", async () => {
      const res = await fetch(`${relay.url}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": user.key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
        body: JSON.stringify({ model: MODEL, max_tokens: 64, stream: true, messages: [{ role: "user", content: "hi" }] }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      const events = sseEvents(await res.text());
      const names = events.map((e) => e.event);
      expect(names.slice(0, 4)).toEqual(["message_start", "ping", "content_block_start", "content_block_delta"]);
      expect(names.slice(-3)).toEqual(["content_block_stop", "message_delta", "message_stop"]);
      expect(names).not.toContain("");
      for (const e of events) expect(e.data.type).toBe(e.event);
      expect(events.at(-2)!.data).toMatchObject({ delta: { stop_reason: "end_turn", stop_sequence: null } });
      expect((events.at(-2)!.data.usage as Obj).output_tokens).toBeGreaterThan(0);
    });

    it("streams a tool call as a tool_use block whose input the SDK parses", async () => {
      mock.setBehaviour({ toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris","unit":"c"}' }] });
      const stream = client.messages.stream({
        model: MODEL,
        max_tokens: 64,
        tools: [WEATHER_TOOL],
        tool_choice: { type: "tool", name: "get_weather", disable_parallel_tool_use: true },
        messages: [{ role: "user", content: "weather in Paris?" }],
      });
      const jsonDeltas: string[] = [];
      stream.on("inputJson", (partial) => {
        jsonDeltas.push(partial);
      });
      const final = await stream.finalMessage();
      expect(final.stop_reason).toBe("tool_use");
      expect(final.content).toHaveLength(1);
      expect(final.content[0]).toMatchObject({ type: "tool_use", name: "get_weather", input: { city: "Paris", unit: "c" } });
      expect((final.content[0] as Anthropic.ToolUseBlock).id).toMatch(/^call_/);
      expect(jsonDeltas.join("")).toBe('{"city":"Paris","unit":"c"}');
      const sent = mock.requests.at(-1)!.json as Obj;
      expect(sent.tools).toEqual([
        {
          type: "function",
          function: { name: "get_weather", description: "The weather in a city", parameters: WEATHER_TOOL.input_schema },
        },
      ]);
      expect(sent.tool_choice).toEqual({ type: "function", function: { name: "get_weather" } });
      expect(sent.parallel_tool_calls).toBe(false);
    });

    it("answers a tool call whole, with parsed input", async () => {
      mock.setBehaviour({
        toolCalls: [
          { name: "get_weather", arguments: '{"city":"Paris"}' },
          { name: "get_weather", arguments: '{"city":"Rome"}' },
        ],
      });
      const msg = await client.messages.create({
        model: MODEL,
        max_tokens: 64,
        tools: [WEATHER_TOOL],
        tool_choice: { type: "any" },
        messages: [{ role: "user", content: "weather in Paris and Rome?" }],
      });
      expect(msg.stop_reason).toBe("tool_use");
      expect(msg.content.map((b) => (b.type === "tool_use" ? b.input : null))).toEqual([{ city: "Paris" }, { city: "Rome" }]);
      expect((mock.requests.at(-1)!.json as Obj).tool_choice).toBe("required");
    });

    it("carries a multi-turn conversation with tool_use and tool_result to the upstream", async () => {
      const msg = await client.messages.create({
        model: MODEL,
        max_tokens: 64,
        tools: [WEATHER_TOOL],
        messages: [
          { role: "user", content: "weather in Paris?" },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "I should call the tool.", signature: "sig" },
              { type: "text", text: "Let me look." },
              { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_01", content: [{ type: "text", text: "18°C, sunny" }] },
              { type: "text", text: "And tomorrow?" },
            ],
          },
        ],
      });
      expect(msg.content).toEqual([{ type: "text", text: "Hello! How can I help you today?" }]);
      expect((mock.requests.at(-1)!.json as Obj).messages).toEqual([
        { role: "user", content: "weather in Paris?" },
        {
          role: "assistant",
          content: "Let me look.",
          tool_calls: [{ id: "toolu_01", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
        },
        { role: "tool", tool_call_id: "toolu_01", content: "18°C, sunny" },
        { role: "user", content: "And tomorrow?" },
      ]);
    });

    it("counts tokens locally, tools included, without an upstream or a charge", async () => {
      const before = await user.quota();
      const body = { model: MODEL, system: "Be brief.", messages: [{ role: "user" as const, content: "How warm is Paris today?" }] };
      const plain = await client.messages.countTokens(body);
      const withTools = await client.messages.countTokens({ ...body, tools: [WEATHER_TOOL] });
      expect(plain.input_tokens).toBe(countJsonPromptTokens("chat", decodeMessagesRequest(body, { requireMaxTokens: false }), MODEL));
      expect(withTools.input_tokens).toBeGreaterThan(plain.input_tokens);
      expect(mock.requests).toHaveLength(0);
      await settleAll();
      expect(await consumeLogs()).toHaveLength(0);
      expect(await user.quota()).toBe(before);
      // A bad body is refused in Anthropic's shape; max_tokens is not required here.
      const bad = await fetch(`${relay.url}/v1/messages/count_tokens`, {
        method: "POST",
        headers: { "x-api-key": user.key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
        body: JSON.stringify({ model: MODEL, messages: { role: "user" } }),
      });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({
        type: "error",
        error: { type: "invalid_request_error", message: expect.stringMatching(/^messages/) },
      });
      // A bad key is refused here too.
      const stranger = new Anthropic({ apiKey: "sk-nope", baseURL: relay.url, maxRetries: 0 });
      await expect(stranger.messages.countTokens(body)).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    });

    it("refuses a bad key with Anthropic's authentication_error", async () => {
      const stranger = new Anthropic({ apiKey: "sk-0123456789abcdef0123456789abcdef0123456789abcdef", baseURL: relay.url, maxRetries: 0 });
      const error = await stranger.messages
        .create({ model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
        .catch((e) => e);
      expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
      expect(error.status).toBe(401);
      expect(error.error).toMatchObject({ type: "error", error: { type: "authentication_error", message: expect.stringMatching(/令牌/) } });
      // The key in Authorization: Bearer is read as well.
      const bearer = new Anthropic({ authToken: user.key, apiKey: null, baseURL: relay.url, maxRetries: 0 });
      const ok = await bearer.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
      expect(ok.type).toBe("message");
    });

    it("refuses a bad body with a 400 before anything is reserved or billed", async () => {
      const before = await user.quota();
      const missing = await client.messages
        .create({ model: MODEL, messages: [{ role: "user", content: "hi" }] } as unknown as Anthropic.MessageCreateParamsNonStreaming)
        .catch((e) => e);
      expect(missing).toBeInstanceOf(Anthropic.BadRequestError);
      expect(missing.error).toMatchObject({
        type: "error",
        error: { type: "invalid_request_error", message: expect.stringMatching(/max_tokens/) },
      });
      for (const body of [
        { model: MODEL, max_tokens: 10, messages: "hi" },
        { model: 42, max_tokens: 10, messages: [] },
        // A role no Anthropic message has (a system message inside `messages` is Claude Code's
        // mid-conversation system text, and converts).
        { model: MODEL, max_tokens: 10, messages: [{ role: "tool", content: "x" }] },
      ]) {
        const res = await fetch(`${relay.url}/v1/messages`, {
          method: "POST",
          headers: { "x-api-key": user.key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
      }
      expect(mock.requests).toHaveLength(0);
      await settleAll();
      expect(await consumeLogs()).toHaveLength(0);
      expect(await user.quota()).toBe(before);
    });

    it("answers the relay's own refusals and the upstream's errors in Anthropic's shape", async () => {
      const noChannel = await client.messages
        .create({ model: "no-such-model", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
        .catch((e) => e);
      // An unknown model is Anthropic's 404 not_found_error: never "overloaded", which Claude Code retries.
      expect(noChannel).toBeInstanceOf(Anthropic.NotFoundError);
      expect(noChannel.error).toMatchObject({ type: "error", error: { type: "not_found_error" } });

      mock.setBehaviour({ failStatus: 429 });
      const limited = await client.messages
        .create({ model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
        .catch((e) => e);
      expect(limited).toBeInstanceOf(Anthropic.RateLimitError);
      expect(limited.error).toMatchObject({ type: "error", error: { type: "rate_limit_error", message: expect.any(String) } });

      mock.setBehaviour(null);
      const poor = await seedUser({ quota: 1 });
      const broke = new Anthropic({ apiKey: poor.key, baseURL: relay.url, maxRetries: 0 });
      const refused = await broke.messages
        .create({ model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
        .catch((e) => e);
      expect(refused).toBeInstanceOf(Anthropic.PermissionDeniedError);
      expect(refused.error).toMatchObject({ type: "error", error: { type: "permission_error" } });
    });

    it("refuses a body over the relay's cap with Anthropic's request_too_large", async () => {
      const res = await postOversized(relay.url, user.key);
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body)).toEqual({
        type: "error",
        error: { type: "request_too_large", message: expect.stringMatching(/^请求体过大（不能超过 64 MB） \(request id: \w+\)$/) },
      });
      expect(mock.requests).toHaveLength(0);
    });

    it("ends a stream that fails midway with Anthropic's error event", async () => {
      mock.setBehaviour({ errorAfterChunks: 2 });
      const res = await fetch(`${relay.url}/v1/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.key}`, "anthropic-version": "2023-06-01", "content-type": "application/json" },
        body: JSON.stringify({ model: MODEL, max_tokens: 64, stream: true, messages: [{ role: "user", content: "hi" }] }),
      });
      const events = sseEvents(await res.text());
      expect(events.map((e) => e.event)).toEqual([
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "error",
      ]);
      expect(events.at(-1)!.data).toMatchObject({ type: "error", error: { type: "api_error", message: expect.any(String) } });
      // The SDK raises it.
      const stream = client.messages.stream({ model: MODEL, max_tokens: 64, messages: [{ role: "user", content: "hi" }] });
      await expect(stream.finalMessage()).rejects.toBeInstanceOf(Anthropic.APIError);
    });
  });
}
