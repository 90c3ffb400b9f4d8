// Responses API callers on channels that have the same API (OpenAI type 1, Azure type 3): the
// official `openai` client's `responses.create` through both relay entries, against a mock of
// OpenAI's Responses API. The request goes up as the caller sent it (only `model` mapped), so what
// only OpenAI serves (built-in tools, previous_response_id, store) works, and the answer comes
// back as the upstream sent it, billed from its own Responses usage. On a channel that converts
// (Anthropic, type 14), what needs OpenAI's stored state is refused with the decoder's 400 and
// charges nothing, and a built-in tool is left out and named in `x-qiao-dropped`.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { type AnthropicMock, startAnthropicMock } from "@/tests/mocks/anthropic";
import { RESPONSES_TEXT, RESPONSES_USAGE, type ResponsesMock, startResponsesMock } from "@/tests/mocks/openai-responses";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const MODEL = "gpt-4o-mini";
const UPSTREAM_MODEL = "gpt-4o-mini-deploy";
// ModelRatio 2, CompletionRatio 4, CacheRatio 0.5 on the mock's usage: 1200 input of which 1024
// cached, 40 output → ((1200 - 1024) + 1024 × 0.5 + 40 × 4) × 2.
const QUOTA = (RESPONSES_USAGE.input_tokens - 1024 + 1024 * 0.5 + RESPONSES_USAGE.output_tokens * 4) * 2;

for (const entry of ENTRIES) {
  describe(`Responses callers on OpenAI and Azure channels pass through (${entry} entry)`, () => {
    let mock: ResponsesMock;
    let claude: AnthropicMock;
    let relay: RelayServer;
    let client: OpenAI;
    let user: Awaited<ReturnType<typeof seedUser>>;
    const consumeLogs = async () => (await getDb()).log.findMany({ where: { user_id: user.id, type: 2 }, orderBy: { id: "asc" } });

    beforeAll(async () => {
      mock = await startResponsesMock({ apiKey: "sk-upstream-key" });
      claude = await startAnthropicMock({ apiKey: "sk-ant-mock" });
      relay = await startRelay(entry);
      await updateOption("ModelRatio", JSON.stringify({ [MODEL]: 2, "gpt-4.1-mini": 1 }));
      await updateOption("CompletionRatio", JSON.stringify({ [MODEL]: 4 }));
      await updateOption("CacheRatio", JSON.stringify({ [MODEL]: 0.5 }));
    });
    afterAll(async () => {
      await relay.close();
      await mock.close();
      await claude.close();
    });
    beforeEach(async () => {
      mock.reset();
      claude.reset();
      await clearRelayData();
      await updateOption("RetryTimes", "0");
      user = await seedUser();
      client = new OpenAI({ apiKey: user.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
    });

    const openaiChannel = () =>
      seedChannel({ type: 1, base_url: mock.url, models: MODEL, model_mapping: JSON.stringify({ [MODEL]: UPSTREAM_MODEL }) });

    it("sends the caller's body as it came, built-in tools and previous_response_id included, and answers OpenAI's Response", async () => {
      await openaiChannel();
      const before = await user.quota();
      const params = {
        model: MODEL,
        instructions: "Be brief.",
        input: [{ role: "user" as const, content: [{ type: "input_text" as const, text: "news today?" }] }],
        previous_response_id: "resp_earlier",
        tools: [{ type: "web_search" as const }],
        include: ["reasoning.encrypted_content" as const],
        store: false,
        reasoning: { effort: "low" as const },
        metadata: { ticket: "7" },
      };
      const res = await client.responses.create(params);
      const sent = mock.requests[0]!;
      expect(sent.path).toBe("/v1/responses");
      expect(sent.headers.authorization).toBe("Bearer sk-upstream-key");
      // Only the model is the channel's; everything else is the caller's.
      expect(sent.json).toEqual({ ...params, model: UPSTREAM_MODEL });
      // OpenAI's own answer: its id, its web_search_call item, its usage, untouched.
      expect(res.id).toMatch(/^resp_mock/);
      expect(res.output.map((o) => o.type)).toEqual(["web_search_call", "message"]);
      expect(res.output_text).toBe(RESPONSES_TEXT);
      expect(res.usage).toEqual(RESPONSES_USAGE);
      expect(res.previous_response_id).toBe("resp_earlier");

      await settleAll();
      const [log] = await consumeLogs();
      expect(log).toMatchObject({
        model_name: MODEL,
        prompt_tokens: RESPONSES_USAGE.input_tokens,
        completion_tokens: RESPONSES_USAGE.output_tokens,
        quota: BigInt(QUOTA),
        is_stream: false,
      });
      expect(JSON.parse(log!.other)).toMatchObject({ upstream_usage: true, request_path: "/v1/responses" });
      expect(await user.quota()).toBe(before - BigInt(QUOTA));
    });

    it("streams OpenAI's own events to the caller and bills the usage of response.completed", async () => {
      await openaiChannel();
      const stream = await client.responses.create({ model: MODEL, input: "hi", tools: [{ type: "web_search" }], stream: true });
      const kinds: string[] = [];
      let text = "";
      let completed: OpenAI.Responses.Response | null = null;
      for await (const event of stream) {
        kinds.push(event.type);
        if (event.type === "response.output_text.delta") text += event.delta;
        if (event.type === "response.completed") completed = event.response;
      }
      expect(kinds[0]).toBe("response.created");
      expect(kinds.at(-1)).toBe("response.completed");
      expect(text).toBe(RESPONSES_TEXT);
      expect(completed!.usage).toEqual(RESPONSES_USAGE);
      // The caller's body went up as it came: no stream_options added, the tool kept.
      expect(mock.requests[0]!.json).toEqual({ model: UPSTREAM_MODEL, input: "hi", tools: [{ type: "web_search" }], stream: true });

      await settleAll();
      const [log] = await consumeLogs();
      expect(log).toMatchObject({
        is_stream: true,
        prompt_tokens: RESPONSES_USAGE.input_tokens,
        completion_tokens: RESPONSES_USAGE.output_tokens,
        quota: BigInt(QUOTA),
      });
      expect(JSON.parse(log!.other)).toMatchObject({ upstream_usage: true });
    });

    it("sends Azure channels' calls to the v1 surface with the deployment as the model and the api-key header", async () => {
      await seedChannel({ type: 3, base_url: mock.url, models: "gpt-4.1-mini", key: "sk-upstream-key", other: "2024-10-21" });
      const res = await client.responses.create({ model: "gpt-4.1-mini", input: "hi", store: true });
      const sent = mock.requests[0]!;
      expect(sent.path).toBe("/openai/v1/responses");
      expect(sent.headers["api-key"]).toBe("sk-upstream-key");
      expect(sent.headers.authorization).toBeUndefined();
      expect(sent.json).toEqual({ model: "gpt-41-mini", input: "hi", store: true });
      expect(res.output_text).toBe(RESPONSES_TEXT);
      await settleAll();
      const [log] = await consumeLogs();
      expect(log).toMatchObject({ prompt_tokens: RESPONSES_USAGE.input_tokens, completion_tokens: RESPONSES_USAGE.output_tokens });
    });

    it("answers the upstream's own error in OpenAI's shape and charges nothing", async () => {
      await openaiChannel();
      mock.setBehaviour({ failStatus: 429 });
      const before = await user.quota();
      const err = await client.responses.create({ model: MODEL, input: "hi" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.RateLimitError);
      await settleAll();
      expect(await user.quota()).toBe(before);
      expect(await consumeLogs()).toEqual([]);
    });

    it("passes a stream that fails midway on as it came, billing the text that was sent", async () => {
      await openaiChannel();
      mock.setBehaviour({ failMidway: true });
      const stream = await client.responses.create({ model: MODEL, input: "hi", stream: true });
      const kinds: string[] = [];
      for await (const event of stream) kinds.push(event.type);
      expect(kinds.at(-1)).toBe("response.failed");
      await settleAll();
      const [log] = await consumeLogs();
      // No usage came: the delivered text is counted locally.
      expect(log).toMatchObject({ is_stream: true, completion_tokens: expect.any(Number) });
      expect(log!.completion_tokens).toBeGreaterThan(0);
      expect(JSON.parse(log!.other)).toMatchObject({ upstream_usage: false });
    });

    it("refuses what needs OpenAI's stored state on a converting channel (Anthropic), and converts the rest", async () => {
      await seedChannel({ type: 14, base_url: claude.url, models: MODEL, key: "sk-ant-mock" });
      const before = await user.quota();
      const cases: [Record<string, unknown>, RegExp][] = [
        [
          {
            model: MODEL,
            input: [
              { role: "user", content: "hi" },
              { type: "item_reference", id: "msg_1" },
            ],
          },
          /item_reference/,
        ],
        [{ model: MODEL, input: "hi", previous_response_id: "resp_123" }, /previous_response_id/],
      ];
      for (const [body, message] of cases) {
        const err = await client.responses.create(body as never).catch((e: unknown) => e);
        expect(err, JSON.stringify(body)).toBeInstanceOf(OpenAI.BadRequestError);
        expect((err as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
          type: "invalid_request_error",
          message: expect.stringMatching(message),
        });
      }
      expect(claude.requests).toHaveLength(0);
      await settleAll();
      expect(await user.quota()).toBe(before);
      expect(await consumeLogs()).toEqual([]);

      // A request it can serve is converted to Claude's Messages and answered as a Response; the
      // search only OpenAI runs is left out, and named.
      const { data: res, response } = await client.responses
        .create({ model: MODEL, input: "hi", tools: [{ type: "web_search" }] })
        .withResponse();
      expect(claude.requests[0]!.path).toBe("/v1/messages");
      expect(claude.requests[0]!.json.tools).toBeUndefined();
      expect(response.headers.get("x-qiao-dropped")).toBe("web_search");
      expect(res.object).toBe("response");
      expect(res.output_text.length).toBeGreaterThan(0);
    });

    it("tries the next channel when a converting one cannot serve the request, so a native one answers it", async () => {
      await updateOption("RetryTimes", "1");
      // The converting channel is chosen first (higher priority); the refusal lets the OpenAI one try.
      await seedChannel({ type: 14, base_url: claude.url, models: MODEL, key: "sk-ant-mock", priority: 10 });
      await openaiChannel();
      const res = await client.responses.create({ model: MODEL, input: "hi", previous_response_id: "resp_123" });
      expect(res.previous_response_id).toBe("resp_123");
      expect(claude.requests).toHaveLength(0);
      expect(mock.requests).toHaveLength(1);
    });
  });
}
