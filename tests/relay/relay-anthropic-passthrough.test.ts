// Anthropic's own callers on an Anthropic channel: the official @anthropic-ai/sdk against
// /v1/messages, with the Claude channel speaking the caller's protocol, so the request goes up as
// the caller sent it (model mapped, anthropic-version and anthropic-beta forwarded) and the answer
// comes back as Claude sent it, read by the relay only for usage. Billing, logs and errors are the
// pipeline's as for every call. Through both entries (Node and Next's route handler).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import Anthropic from "@anthropic-ai/sdk";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { type AnthropicMock, CLAUDE_TEXT, CLAUDE_USAGE, startAnthropicMock } from "@/tests/mocks/anthropic";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const MODEL = "claude-3-5-sonnet-20241022";

async function consumeLogs(userId: number) {
  return (await getDb()).log.findMany({ where: { user_id: userId, type: 2 }, orderBy: { id: "asc" } });
}

for (const entry of ENTRIES) {
  describe(`Anthropic callers on a Claude channel pass through (${entry} entry)`, () => {
    let mock: AnthropicMock;
    let relay: RelayServer;
    let client: Anthropic;
    let user: Awaited<ReturnType<typeof seedUser>>;

    beforeAll(async () => {
      mock = await startAnthropicMock({ apiKey: "sk-ant-mock" });
      relay = await startRelay(entry);
      await updateOption("ModelRatio", JSON.stringify({ [MODEL]: 2 }));
      await updateOption("CompletionRatio", JSON.stringify({ [MODEL]: 5 }));
      await updateOption("CacheRatio", JSON.stringify({ [MODEL]: 0.1 }));
    });
    afterAll(async () => {
      await relay.close();
      await mock.close();
    });
    beforeEach(async () => {
      mock.reset();
      await clearRelayData();
      await updateOption("RetryTimes", "0");
      user = await seedUser();
      client = new Anthropic({ apiKey: user.key, baseURL: relay.url, maxRetries: 0 });
      await seedChannel({ type: 14, base_url: mock.url, models: MODEL, key: "sk-ant-mock" });
    });

    it("sends the caller's own body and headers, and answers Claude's message as it came", async () => {
      const params = {
        model: MODEL,
        max_tokens: 300,
        system: [{ type: "text" as const, text: "Be brief.", cache_control: { type: "ephemeral" as const } }],
        messages: [{ role: "user" as const, content: "hi" }],
        thinking: { type: "enabled" as const, budget_tokens: 1024 },
        top_k: 5,
      };
      const msg = await client.messages.create(params, {
        headers: { "anthropic-version": "2023-01-01", "anthropic-beta": "prompt-caching-2024-07-31" },
      });
      const sent = mock.requests[0]!;
      // Nothing of the caller's request is lost on the way: Anthropic-only members included.
      expect(sent.json).toEqual(params);
      expect(sent.headers["x-api-key"]).toBe("sk-ant-mock");
      // The caller's version, not Qiao's default.
      expect(sent.headers["anthropic-version"]).toBe("2023-01-01");
      expect(sent.headers["anthropic-beta"]).toBe("prompt-caching-2024-07-31");
      // Claude's own answer, usage with its cache fields, as Claude wrote it.
      expect(msg.type).toBe("message");
      expect(msg.content).toEqual([{ type: "text", text: CLAUDE_TEXT }]);
      expect(msg.usage).toMatchObject(CLAUDE_USAGE);

      await settleAll();
      const [log] = await consumeLogs(user.id);
      const prompt = CLAUDE_USAGE.input_tokens + CLAUDE_USAGE.cache_read_input_tokens + CLAUDE_USAGE.cache_creation_input_tokens;
      expect(log).toMatchObject({ model_name: MODEL, prompt_tokens: prompt, completion_tokens: CLAUDE_USAGE.output_tokens });
      expect(JSON.parse(log!.other)).toMatchObject({ upstream_usage: true, request_path: "/v1/messages" });
      expect(log!.quota).toBeGreaterThan(0n);
    });

    it("bills a passed-through call exactly as the same call converted from OpenAI's protocol", async () => {
      await client.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: "user", content: "hi" }] });
      const res = await fetch(`${relay.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: MODEL, max_tokens: 100, messages: [{ role: "user", content: "hi" }] }),
      });
      expect(res.status).toBe(200);
      await settleAll();
      const [native, converted] = await consumeLogs(user.id);
      expect(native!.prompt_tokens).toBe(converted!.prompt_tokens);
      expect(native!.completion_tokens).toBe(converted!.completion_tokens);
      expect(native!.quota).toBe(converted!.quota);
    });

    it("streams Claude's own events to the caller, tool use included, and bills the stream's usage", async () => {
      mock.setBehaviour({ toolUses: [{ name: "get_weather", input: { city: "Paris" } }] });
      const stream = client.messages.stream({
        model: MODEL,
        max_tokens: 200,
        messages: [{ role: "user", content: "weather in Paris?" }],
        tools: [
          { name: "get_weather", description: "Weather", input_schema: { type: "object", properties: { city: { type: "string" } } } },
        ],
      });
      const kinds: string[] = [];
      stream.on("streamEvent", (e) => kinds.push(e.type));
      const final = await stream.finalMessage();
      expect(kinds[0]).toBe("message_start");
      expect(kinds.at(-1)).toBe("message_stop");
      expect(final.content.find((b) => b.type === "tool_use")).toMatchObject({ name: "get_weather", input: { city: "Paris" } });
      expect(final.stop_reason).toBe("tool_use");
      expect(mock.requests[0]!.json.stream).toBe(true);

      await settleAll();
      const [log] = await consumeLogs(user.id);
      expect(log).toMatchObject({ is_stream: true, completion_tokens: CLAUDE_USAGE.output_tokens });
      expect(JSON.parse(log!.other)).toMatchObject({ upstream_usage: true });
    });

    it("bills a stream whose events arrive split anywhere (inside `event:`, inside the usage JSON) exactly", async () => {
      const params = { model: MODEL, max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }] };
      const send = async () => {
        const res = await fetch(`${relay.url}/v1/messages`, {
          method: "POST",
          headers: { "x-api-key": user.key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
          body: JSON.stringify(params),
        });
        expect(res.status).toBe(200);
        // The mock numbers its messages: the rest of the stream is the same on every call.
        return (await res.text()).replace(/"msg_\w+"/g, '"msg"');
      };
      const whole = await send();
      // Every event cut in two or three: in its `event:` line, in its data, and the usage JSON of
      // message_start and message_delta inside the numbers; the blank line between events cut too.
      mock.setBehaviour({
        splitAt: (wire) => {
          const cuts: number[] = [];
          for (let at = wire.indexOf("event:"); at !== -1; at = wire.indexOf("event:", at + 1)) cuts.push(at + 3, at + 20);
          for (let at = wire.indexOf("\n\n"); at !== -1; at = wire.indexOf("\n\n", at + 2)) cuts.push(at + 1);
          for (const key of ['"input_tokens":', '"output_tokens":', '"cache_read_input_tokens":']) {
            for (let at = wire.indexOf(key); at !== -1; at = wire.indexOf(key, at + 1)) cuts.push(at + 4, at + key.length + 1);
          }
          return cuts;
        },
      });
      // The caller gets Claude's bytes as they came, whatever the pieces.
      expect(await send()).toBe(whole);
      await settleAll();
      const [unsplit, split] = await consumeLogs(user.id);
      const prompt = CLAUDE_USAGE.input_tokens + CLAUDE_USAGE.cache_read_input_tokens + CLAUDE_USAGE.cache_creation_input_tokens;
      for (const log of [unsplit, split]) {
        expect(log).toMatchObject({ is_stream: true, prompt_tokens: prompt, completion_tokens: CLAUDE_USAGE.output_tokens });
        expect(JSON.parse(log!.other)).toMatchObject({ upstream_usage: true });
      }
      expect(split!.quota).toBe(unsplit!.quota);
    });

    it("bills a stream cut off inside the usage JSON as the same stream converted for an OpenAI caller", async () => {
      // The connection drops in the middle of message_delta's usage: no usage reached the relay,
      // so the text delivered is counted, passed through or converted alike.
      const cutOffAt = (wire: string) => wire.indexOf('"output_tokens"', wire.indexOf("event: message_delta")) + 7;
      const splitAt = (wire: string) => [wire.indexOf("event: content_block_delta") + 9, wire.indexOf("event: message_delta") + 3];
      mock.setBehaviour({ cutOffAt, splitAt });
      const res = await fetch(`${relay.url}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": user.key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
        body: JSON.stringify({ model: MODEL, max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }] }),
      });
      const passed = await res.text();
      // Claude's own events up to the cut, then the relay's error event in Anthropic's shape.
      expect(passed).toContain("event: content_block_delta");
      expect(passed).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"api_error"[^\n]*stream interrupted/);
      const converted = await fetch(`${relay.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: MODEL, max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }] }),
      });
      expect(await converted.text()).toContain("stream_interrupted");
      await settleAll();
      const [native, openai] = await consumeLogs(user.id);
      expect(JSON.parse(native!.other)).toMatchObject({ upstream_usage: false, stream_end: "interrupted" });
      expect(JSON.parse(openai!.other)).toMatchObject({ upstream_usage: false, stream_end: "interrupted" });
      expect(native!.completion_tokens).toBeGreaterThan(0);
      expect(native!.prompt_tokens).toBe(openai!.prompt_tokens);
      expect(native!.completion_tokens).toBe(openai!.completion_tokens);
      expect(native!.quota).toBe(openai!.quota);
    });

    it("lists the key's models in Anthropic's shape (paged), and OpenAI's list stays OpenAI's", async () => {
      await seedChannel({ type: 14, base_url: mock.url, models: "claude-3-haiku-20240307,claude-3-opus-20240229", key: "sk-ant-mock" });
      // Only priced models are listed (issue 20.17).
      await updateOption("ModelRatio", JSON.stringify({ [MODEL]: 2, "claude-3-haiku-20240307": 0.125, "claude-3-opus-20240229": 7.5 }));
      const all = ["claude-3-5-sonnet-20241022", "claude-3-haiku-20240307", "claude-3-opus-20240229"];
      const page = await client.models.list({ limit: 2 });
      expect(page.data.map((m) => m.id)).toEqual(all.slice(0, 2));
      expect(page.data[0]).toEqual({
        type: "model",
        id: all[0],
        display_name: all[0],
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      expect(page.has_more).toBe(true);
      const ids: string[] = [];
      for await (const m of client.models.list({ limit: 2 })) ids.push(m.id);
      expect(ids).toEqual(all);
      expect(await client.models.retrieve(MODEL)).toMatchObject({ type: "model", id: MODEL });
      const missing = await client.models.retrieve("claude-unknown").catch((e) => e);
      expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
      expect(missing.error).toMatchObject({ type: "error", error: { type: "not_found_error" } });
      const openai = await fetch(`${relay.url}/v1/models`, { headers: { authorization: `Bearer ${user.key}` } });
      expect(await openai.json()).toMatchObject({
        object: "list",
        data: expect.arrayContaining([expect.objectContaining({ object: "model", id: MODEL })]),
      });
    });

    it("passes on a body the decoder cannot read (a vendor's newer shape), and bills it", async () => {
      // A content block type no release of Qiao knows: the decoder fails, the channel speaks
      // Anthropic, so the body goes up as it came and Claude decides.
      const body = {
        model: MODEL,
        max_tokens: 50,
        messages: [{ role: "user", content: [{ type: "future_block_2030", text: "hi" }] }],
      };
      const res = await fetch(`${relay.url}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": user.key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      expect(mock.requests[0]!.json).toEqual(body);
      expect(res.headers.get("x-qiao-dropped")).toBeNull();
      await settleAll();
      const [log] = await consumeLogs(user.id);
      expect(log).toMatchObject({ model_name: MODEL, completion_tokens: CLAUDE_USAGE.output_tokens });
    });

    it("answers Claude's own error in Anthropic's shape and charges nothing", async () => {
      mock.setBehaviour({ failStatus: 529 });
      const before = await user.quota();
      const error = await client.messages
        .create({ model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
        .catch((e) => e);
      expect(error).toBeInstanceOf(Anthropic.APIError);
      expect(error.status).toBe(529);
      expect(error.error).toMatchObject({ type: "error", error: { type: "overloaded_error" } });
      await settleAll();
      expect(await user.quota()).toBe(before);
      expect(await consumeLogs(user.id)).toHaveLength(0);
    });
  });
}
