// OpenAI's Responses API (`POST /v1/responses`) as its official client sees it, through both relay
// entries, in front of an OpenAI-protocol channel that has no Responses API (DeepSeek, type 43: a
// mock chat completions upstream on loopback): the request reaches the channel as chat, and the
// answer comes back as a Response object or its event stream, billed like the same chat call.
// (OpenAI and Azure channels pass the caller's request through: relay-responses-passthrough.test.ts.)
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const MODEL = "gpt-4o-mini";
const REPLY = "Hello! How can I help you today?";
const WEATHER_TOOL = {
  type: "function" as const,
  name: "get_weather",
  description: "Weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: false,
};
const WEATHER_CALL = { name: "get_weather", arguments: '{"city":"Paris","unit":"c"}' };

type Sent = { messages: Record<string, unknown>[]; [k: string]: unknown };

for (const entry of ENTRIES) {
  describe(`the Responses API through the ${entry} entry`, () => {
    let mock: OpenAIMock;
    let relay: RelayServer;
    let user: Awaited<ReturnType<typeof seedUser>>;
    let client: OpenAI;
    const sent = () => mock.requests.at(-1)!.json as Sent;
    const consumeLogs = async () => (await getDb()).log.findMany({ where: { user_id: user.id, type: 2 }, orderBy: { id: "asc" } });

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
      await seedChannel({ type: 43, base_url: mock.url, models: MODEL });
      user = await seedUser();
      client = new OpenAI({ apiKey: user.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
    });

    it("answers a whole response, sent to the channel as chat, billed like the same chat call", async () => {
      const before = await user.quota();
      const res = await client.responses.create({
        model: MODEL,
        instructions: "Be brief.",
        input: "hi",
        max_output_tokens: 64,
        temperature: 0,
        metadata: { ticket: "7" },
      });
      expect(res).toMatchObject({
        object: "response",
        status: "completed",
        model: MODEL,
        instructions: "Be brief.",
        max_output_tokens: 64,
        temperature: 0,
        metadata: { ticket: "7" },
        previous_response_id: null,
        error: null,
        incomplete_details: null,
      });
      expect(res.id).toMatch(/^resp_/);
      expect(res.output_text).toBe(REPLY);
      expect(res.output).toEqual([
        {
          type: "message",
          id: expect.stringMatching(/^msg_/),
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: REPLY, annotations: [], logprobs: [] }],
        },
      ]);
      expect(sent()).toEqual({
        model: MODEL,
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "hi" },
        ],
        max_tokens: 64,
        temperature: 0,
      });
      expect(mock.requests.at(-1)!.path).toBe("/v1/chat/completions");

      // The same conversation as a chat completion: the same usage, the same price.
      const chat = await client.chat.completions.create({
        model: MODEL,
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "hi" },
        ],
      });
      expect(res.usage).toEqual({
        input_tokens: chat.usage!.prompt_tokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: chat.usage!.completion_tokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: chat.usage!.total_tokens,
      });
      await settleAll();
      const [viaResponses, viaChat] = await consumeLogs();
      expect(viaResponses).toMatchObject({
        model_name: MODEL,
        prompt_tokens: res.usage!.input_tokens,
        completion_tokens: res.usage!.output_tokens,
        is_stream: false,
      });
      expect(JSON.parse(viaResponses!.other).request_path).toBe("/v1/responses");
      expect(viaResponses!.quota).toBeGreaterThan(0n);
      expect(viaResponses!.quota).toBe(viaChat!.quota);
      expect(before - (await user.quota())).toBe(viaResponses!.quota + viaChat!.quota);
    });

    it("streams named events in order, ending with response.completed and its usage", async () => {
      const stream = await client.responses.create({ model: MODEL, input: "hi", stream: true });
      const events: OpenAI.Responses.ResponseStreamEvent[] = [];
      for await (const event of stream) events.push(event);
      expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
      const types = events.map((e) => e.type);
      expect(types.slice(0, 4)).toEqual([
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
      ]);
      expect(types.slice(-5)).toEqual([
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
      ]);
      const deltas = events.filter((e) => e.type === "response.output_text.delta");
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.map((e) => e.delta).join("")).toBe(REPLY);
      const done = events.find((e) => e.type === "response.output_text.done")!;
      expect(done).toMatchObject({ text: REPLY, output_index: 0, content_index: 0 });
      const completed = events.at(-1)! as OpenAI.Responses.ResponseCompletedEvent;
      expect(completed.response.status).toBe("completed");
      expect(completed.response.output).toEqual([
        {
          type: "message",
          id: expect.stringMatching(/^msg_/),
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: REPLY, annotations: [], logprobs: [] }],
        },
      ]);
      expect(completed.response.usage!.output_tokens).toBeGreaterThan(0);
      // The channel was asked for the usage chunk.
      expect(sent().stream_options).toEqual({ include_usage: true });
      await settleAll();
      const [log] = await consumeLogs();
      expect(log).toMatchObject({
        is_stream: true,
        prompt_tokens: completed.response.usage!.input_tokens,
        completion_tokens: completed.response.usage!.output_tokens,
      });
      expect(JSON.parse(log!.other)).toMatchObject({ stream_end: "done", upstream_usage: true, request_path: "/v1/responses" });
    });

    it("names every event on the wire with its type, and sends no [DONE]", async () => {
      const res = await fetch(`${relay.url}/v1/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: MODEL, input: "hi", stream: true }),
      });
      expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      const text = await res.text();
      expect(text).not.toContain("[DONE]");
      const events = text.split("\n\n").filter((e) => e.startsWith("event: "));
      expect(events.length).toBeGreaterThan(8);
      for (const event of events) {
        const [name, data] = event.split("\n");
        expect(JSON.parse(data!.slice("data: ".length)).type).toBe(name!.slice("event: ".length));
      }
    });

    it("serves the SDK's stream helper and its finalResponse()", async () => {
      const stream = client.responses.stream({ model: MODEL, input: [{ role: "user", content: "hi" }] });
      let text = "";
      stream.on("response.output_text.delta", (e) => {
        text += e.delta;
      });
      const final = await stream.finalResponse();
      expect(text).toBe(REPLY);
      expect(final.status).toBe("completed");
      expect(final.output_text).toBe(REPLY);
      expect(final.usage!.total_tokens).toBe(final.usage!.input_tokens + final.usage!.output_tokens);
    });

    it("calls functions, whole: flat tools become chat's, the call comes back as a function_call item", async () => {
      mock.setBehaviour({ toolCalls: [WEATHER_CALL] });
      const res = await client.responses.create({ model: MODEL, input: "weather in Paris?", tools: [WEATHER_TOOL], tool_choice: "auto" });
      expect(sent().tools).toEqual([
        {
          type: "function",
          function: { name: "get_weather", description: "Weather in a city", parameters: WEATHER_TOOL.parameters, strict: false },
        },
      ]);
      expect(sent().tool_choice).toBe("auto");
      expect(res.output).toEqual([
        {
          type: "function_call",
          id: expect.stringMatching(/^fc_/),
          call_id: expect.stringMatching(/^call_/),
          name: "get_weather",
          arguments: WEATHER_CALL.arguments,
          status: "completed",
        },
      ]);
      expect(res.tools).toEqual([WEATHER_TOOL]);
      expect(res.output_text).toBe("");
    });

    it("calls functions, streamed, and takes the call and its output back as input", async () => {
      mock.setBehaviour({ toolCalls: [WEATHER_CALL] });
      const stream = client.responses.stream({ model: MODEL, input: "weather in Paris?", tools: [WEATHER_TOOL] });
      let args = "";
      stream.on("response.function_call_arguments.delta", (e) => {
        args += e.delta;
      });
      const final = await stream.finalResponse();
      expect(args).toBe(WEATHER_CALL.arguments);
      const call = final.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
      expect(call).toMatchObject({ type: "function_call", name: "get_weather", arguments: WEATHER_CALL.arguments, status: "completed" });

      // The next turn: the call and its output go back; the model answers in text.
      mock.setBehaviour(null);
      const next = await client.responses.create({
        model: MODEL,
        tools: [WEATHER_TOOL],
        input: [
          { role: "user", content: "weather in Paris?" },
          { type: "function_call", call_id: call.call_id, name: call.name, arguments: call.arguments },
          { type: "function_call_output", call_id: call.call_id, output: '{"temp":21}' },
        ],
      });
      expect(next.output_text).toBe(REPLY);
      expect(sent().messages).toEqual([
        { role: "user", content: "weather in Paris?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: call.call_id, type: "function", function: { name: "get_weather", arguments: WEATHER_CALL.arguments } }],
        },
        { role: "tool", tool_call_id: call.call_id, content: '{"temp":21}' },
      ]);
    });

    it("ends a stream that fails midway with an error event and response.failed, billing what was sent", async () => {
      mock.setBehaviour({ errorAfterChunks: 2 });
      const stream = await client.responses.create({ model: MODEL, input: "hi", stream: true });
      const events: OpenAI.Responses.ResponseStreamEvent[] = [];
      for await (const event of stream) events.push(event);
      const types = events.map((e) => e.type);
      expect(types.slice(-2)).toEqual(["error", "response.failed"]);
      expect(types).not.toContain("response.completed");
      const failed = events.at(-1) as OpenAI.Responses.ResponseFailedEvent;
      expect(failed.response.status).toBe("failed");
      expect(failed.response.error!.message).toMatch(/server had an error/);
      // What was streamed before the failure stays in the failed response.
      expect(failed.response.output).toMatchObject([
        { type: "message", status: "incomplete", content: [{ type: "output_text", text: "Hello! How" }] },
      ]);
      // The SDK's helper rejects its final response with the error event.
      const helper = client.responses.stream({ model: MODEL, input: "hi" });
      const err = await helper.finalResponse().catch((e: unknown) => e);
      expect(err).toMatchObject({ type: "error", message: expect.stringMatching(/server had an error/) });
      await settleAll();
      const logs = await consumeLogs();
      expect(logs).toHaveLength(2);
      expect(logs.map((l) => JSON.parse(l.other).stream_end)).toEqual(["upstream_error", "upstream_error"]);
    });

    it("answers an upstream's refusal before the answer in OpenAI's shape, billing nothing", async () => {
      mock.setBehaviour({ failStatus: 429 });
      const before = await user.quota();
      for (const stream of [false, true]) {
        const err = await client.responses.create({ model: MODEL, input: "hi", stream }).catch((e: unknown) => e);
        expect(err, `stream: ${stream}`).toBeInstanceOf(OpenAI.APIError);
        const e = err as InstanceType<typeof OpenAI.APIError>;
        expect(e.status).toBe(429);
        expect(e.error).toMatchObject({ message: expect.stringMatching(/请稍后再试 \(request id: \w+\)$/) });
      }
      await settleAll();
      expect(await user.quota()).toBe(before);
    });

    it("refuses a bad key in OpenAI's shape", async () => {
      const bad = new OpenAI({ apiKey: "sk-not-a-key", baseURL: `${relay.url}/v1`, maxRetries: 0 });
      const err = await bad.responses.create({ model: MODEL, input: "hi" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
      expect((err as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ type: expect.any(String), message: expect.any(String) });
      expect(mock.requests).toHaveLength(0);
    });

    it("refuses a bad body, or one a converting channel cannot serve, with a 400, charging and sending nothing", async () => {
      const before = await user.quota();
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ model: MODEL, input: "hi", background: true }, /background/],
        [{ model: MODEL, input: "hi", previous_response_id: "resp_123" }, /previous_response_id/],
        [{ model: MODEL, input: [{ role: "user", content: [{ type: "input_image", file_id: "file-1" }] }] }, /file_id/],
        [{ model: MODEL }, /input/],
        [{ model: MODEL, input: "hi", max_output_tokens: 0 }, /max_output_tokens/],
      ];
      for (const [body, message] of cases) {
        const err = await client.responses.create(body as never).catch((e: unknown) => e);
        expect(err, JSON.stringify(body)).toBeInstanceOf(OpenAI.BadRequestError);
        const e = err as InstanceType<typeof OpenAI.BadRequestError>;
        expect(e.error).toMatchObject({ type: "invalid_request_error", message: expect.stringMatching(message) });
      }
      const raw = await fetch(`${relay.url}/v1/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
        body: "{not json",
      });
      expect(raw.status).toBe(400);
      expect((await raw.json()).error.code).toBe("invalid_json");
      expect(mock.requests).toHaveLength(0);
      await settleAll();
      expect(await user.quota()).toBe(before);
      expect(await consumeLogs()).toEqual([]);
    });

    it("answers 501 for the routes that read stored responses", async () => {
      for (const [method, path] of [
        ["GET", "/v1/responses/resp_123"],
        ["DELETE", "/v1/responses/resp_123"],
        ["GET", "/v1/responses/resp_123/input_items"],
        ["POST", "/v1/responses/resp_123/cancel"],
      ]) {
        const res = await fetch(`${relay.url}${path}`, { method, headers: { authorization: `Bearer ${user.key}` } });
        expect(res.status, `${method} ${path}`).toBe(501);
        expect((await res.json()).error.code).toBe("api_not_implemented");
      }
    });
  });
}
