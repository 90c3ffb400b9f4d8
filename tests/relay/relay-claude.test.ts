// Claude through the real relay (Node entry) with the official OpenAI client, on its two
// upstreams: Anthropic's Messages API (type 14) and AWS Bedrock (type 33, SigV4, event-stream
// frames). Mock vendors speak the real wire formats (tests/mocks/anthropic.ts, bedrock.ts).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { testChannel } from "@/lib/relay/probe/test";
import { type AnthropicMock, CLAUDE_TEXT, type ClaudeBehaviour, startAnthropicMock } from "@/tests/mocks/anthropic";
import { type BedrockBehaviour, type BedrockMock, startBedrockMock } from "@/tests/mocks/bedrock";
import { clearRelayData, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const MODEL = "claude-3-5-sonnet-20241022";
const AWS = { accessKeyId: "AKIAMOCKEXAMPLE", secretAccessKey: "mock/secret+KEY", region: "us-east-1" };

interface Vendor {
  name: string;
  type: number;
  key: string;
  start(): Promise<AnthropicMock | BedrockMock>;
}

const VENDORS: Vendor[] = [
  { name: "Anthropic", type: 14, key: "sk-ant-mock", start: () => startAnthropicMock({ apiKey: "sk-ant-mock" }) },
  { name: "Bedrock", type: 33, key: `${AWS.accessKeyId}|${AWS.secretAccessKey}|${AWS.region}`, start: () => startBedrockMock(AWS) },
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function lastLog(userId: number, type = 2) {
  return (await getDb()).log.findFirstOrThrow({ where: { user_id: userId, type }, orderBy: { id: "desc" } });
}

for (const vendor of VENDORS) {
  describe(`Claude via ${vendor.name} (type ${vendor.type})`, () => {
    let mock: AnthropicMock | BedrockMock;
    let relay: RelayServer;
    let client: OpenAI;
    let user: Awaited<ReturnType<typeof seedUser>>;
    const behave = (b: ClaudeBehaviour & BedrockBehaviour) => mock.setBehaviour(b);
    const channel = (extra: { priority?: number; key?: string } = {}) =>
      seedChannel({ type: vendor.type, base_url: mock.url, models: MODEL, key: vendor.key, ...extra });

    beforeAll(async () => {
      mock = await vendor.start();
      relay = await startRelay("node");
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
      await updateOption("AutomaticDisableChannelEnabled", "false");
      user = await seedUser();
      client = new OpenAI({ apiKey: user.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
    });

    it("answers a whole chat in OpenAI's shape from the vendor's request and answer", async () => {
      await channel();
      const res = await client.chat.completions.create({
        model: MODEL,
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "hi" },
        ],
        stop: ["\n\nHuman:"],
        user: "end-user-7",
      });
      expect(res.object).toBe("chat.completion");
      expect(res.choices[0]).toMatchObject({ message: { role: "assistant", content: CLAUDE_TEXT }, finish_reason: "stop" });
      expect(res.usage).toMatchObject({
        prompt_tokens: 1212,
        completion_tokens: 9,
        total_tokens: 1221,
        prompt_tokens_details: { cached_tokens: 1000 },
      });
      const seen = mock.requests.at(-1)!;
      expect(seen.json).toMatchObject({
        system: "Be brief.",
        messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
        max_tokens: 8192,
        stop_sequences: ["\n\nHuman:"],
      });
      if (vendor.type === 14) {
        expect(seen.path).toBe("/v1/messages");
        expect(seen.headers).toMatchObject({ "x-api-key": vendor.key, "anthropic-version": "2023-06-01" });
        expect(seen.json).toMatchObject({ model: MODEL, metadata: { user_id: "end-user-7" } });
      } else {
        expect(seen.path).toBe("/model/anthropic.claude-3-5-sonnet-20241022-v2%3A0/invoke");
        expect(seen.json.anthropic_version).toBe("bedrock-2023-05-31");
        expect(seen.json.metadata).toBeUndefined();
      }
    });

    it("streams text, with the usage chunk only when the client asks for it", async () => {
      await channel();
      const withUsage = await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: "hi" }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = "";
      let finish: string | null = null;
      const usages: unknown[] = [];
      for await (const chunk of withUsage) {
        text += chunk.choices[0]?.delta?.content ?? "";
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) usages.push(chunk.usage);
      }
      expect(text).toBe(CLAUDE_TEXT);
      expect(finish).toBe("stop");
      expect(usages).toEqual([
        expect.objectContaining({
          prompt_tokens: 1212,
          completion_tokens: 9,
          prompt_tokens_details: expect.objectContaining({ cached_tokens: 1000 }),
        }),
      ]);
      if (vendor.type === 33) expect(mock.requests.at(-1)!.path).toMatch(/\/invoke-with-response-stream$/);
      else expect(mock.requests.at(-1)!.json.stream).toBe(true);

      let plain = "";
      for await (const chunk of await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: "hi" }],
        stream: true,
      })) {
        expect(chunk.usage ?? null).toBeNull();
        plain += chunk.choices[0]?.delta?.content ?? "";
      }
      expect(plain).toBe(CLAUDE_TEXT);
    });

    it("streams tool calls and reasoning the way the OpenAI client assembles them", async () => {
      await channel();
      behave({
        thinking: "Two tools are needed.",
        content: "Checking.",
        toolUses: [
          { name: "get_weather", input: { city: "Paris", unit: "celsius" } },
          { name: "get_time", input: { tz: "Europe/Paris" } },
        ],
      });
      const stream = await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: "Weather and time in Paris?" }],
        tools: [
          { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } },
          { type: "function", function: { name: "get_time", description: "Local time" } },
        ],
        tool_choice: "required",
        stream: true,
      });
      const calls: { id?: string; name?: string; args: string }[] = [];
      let reasoning = "";
      let finish: string | null = null;
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta as (typeof chunk.choices)[0]["delta"] & { reasoning_content?: string };
        reasoning += delta?.reasoning_content ?? "";
        for (const tc of delta?.tool_calls ?? []) {
          calls[tc.index] ??= { args: "" };
          if (tc.id) calls[tc.index]!.id = tc.id;
          if (tc.function?.name) calls[tc.index]!.name = tc.function.name;
          calls[tc.index]!.args += tc.function?.arguments ?? "";
        }
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect(reasoning).toBe("Two tools are needed.");
      expect(finish).toBe("tool_calls");
      expect(calls.map((c) => [c.name, JSON.parse(c.args)])).toEqual([
        ["get_weather", { city: "Paris", unit: "celsius" }],
        ["get_time", { tz: "Europe/Paris" }],
      ]);
      expect(calls.every((c) => /^toolu_/.test(c.id ?? ""))).toBe(true);
      expect(mock.requests.at(-1)!.json).toMatchObject({
        tools: [
          { name: "get_weather", input_schema: { type: "object", properties: { city: { type: "string" } } } },
          { name: "get_time", description: "Local time", input_schema: { type: "object", properties: {} } },
        ],
        tool_choice: { type: "any" },
      });

      // The tool results go back as one user turn of tool_result blocks.
      behave({});
      const done = await client.chat.completions.create({
        model: MODEL,
        messages: [
          { role: "user", content: "Weather and time in Paris?" },
          {
            role: "assistant",
            content: null,
            tool_calls: calls.map((c) => ({ id: c.id!, type: "function" as const, function: { name: c.name!, arguments: c.args } })),
          },
          { role: "tool", tool_call_id: calls[0]!.id!, content: "18C" },
          { role: "tool", tool_call_id: calls[1]!.id!, content: "09:00" },
        ],
      });
      expect(done.choices[0]!.message.content).toBe(CLAUDE_TEXT);
      expect(mock.requests.at(-1)!.json.messages.at(-1)).toEqual({
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: calls[0]!.id, content: "18C" },
          { type: "tool_result", tool_use_id: calls[1]!.id, content: "09:00" },
        ],
      });
    });

    it("bills cache reads and cache writes exactly, whole and streamed", async () => {
      await channel();
      const before = await user.quota();
      await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] });
      for await (const _ of await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: "hi" }],
        stream: true,
      })) {
        // drained
      }
      await settleAll();
      const logs = await (await getDb()).log.findMany({ where: { user_id: user.id, type: 2 }, orderBy: { id: "asc" } });
      expect(logs).toHaveLength(2);
      for (const log of logs) {
        // 2 × (12 uncached + 1000 × 0.1 cache reads + 200 × 1.25 cache writes + 9 × 5 completion) = 2 × 407
        expect(log).toMatchObject({ prompt_tokens: 1212, completion_tokens: 9, quota: 814n });
        expect(JSON.parse(log.other)).toMatchObject({
          cache_tokens: 1000,
          cache_ratio: 0.1,
          cache_creation_tokens: 200,
          cache_creation_ratio: 1.25,
        });
      }
      expect(before - (await user.quota())).toBe(1628n);
    });

    it("sends data: images as base64 and refuses an image URL it may not fetch, charging nothing", async () => {
      await channel();
      const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
      await client.chat.completions.create({
        model: MODEL,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What is this?" },
              { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
            ],
          },
        ],
      });
      expect(mock.requests.at(-1)!.json.messages[0].content[1]).toEqual({
        type: "image",
        source: { type: "base64", media_type: "image/png", data: png },
      });
      await settleAll();
      const before = await user.quota();
      const sent = mock.requests.length;
      const refused = await client.chat.completions
        .create({
          model: MODEL,
          messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: `${mock.url}/cat.png` } }] }],
        })
        .catch((e) => e);
      expect(refused.status).toBe(400);
      expect(refused.error).toMatchObject({ code: "invalid_image_url" });
      expect(refused.error.message).toMatch(/^图片下载失败：/);
      expect(mock.requests).toHaveLength(sent);
      await settleAll();
      expect(await user.quota()).toBe(before);
    });

    it("passes the channel test against the vendor", async () => {
      const ch = await channel();
      const admin = await seedUser({ role: 10 });
      const result = await testChannel(ch.id, { id: admin.id, username: admin.username });
      expect(result).toMatchObject({ success: true, message: "" });
      expect(mock.requests.at(-1)!.json.max_tokens).toBe(1);
    });

    it("ends a stream the vendor breaks off with an error in OpenAI's shape", async () => {
      await channel();
      behave(vendor.type === 14 ? { errorAfterDeltas: 2 } : { exceptionMidStream: "throttlingException" });
      const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }], stream: true });
      const err = await (async () => {
        for await (const _ of stream) {
          // until the error event
        }
      })().catch((e) => e);
      expect(err).toBeInstanceOf(Error);
      expect(String(err.message)).toMatch(vendor.type === 14 ? /Overloaded/ : /Too many requests/);
    });

    if (vendor.type === 14) {
      it("retries a 529 overloaded answer on the next channel and keeps the channel", async () => {
        await updateOption("RetryTimes", "1");
        await updateOption("AutomaticDisableChannelEnabled", "true");
        const first = await channel({ priority: 10 });
        await channel({ priority: 0 });
        behave({ failStatus: 529, failTimes: 1 });
        const res = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] });
        expect(res.choices[0]!.message.content).toBe(CLAUDE_TEXT);
        expect(mock.requests).toHaveLength(2);
        await sleep(50);
        expect((await (await getDb()).channel.findUniqueOrThrow({ where: { id: first.id } })).status).toBe(1);

        // With no retry left, the caller sees Anthropic's status and message.
        await updateOption("RetryTimes", "0");
        behave({ failStatus: 529 });
        const failed = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
        expect(failed.status).toBe(529);
        expect(failed.error).toMatchObject({ type: "overloaded_error" });
        expect(failed.error.message).toContain("Overloaded");
      });

      it("disables a channel whose key Anthropic refuses (401) and serves from the next one", async () => {
        await updateOption("RetryTimes", "1");
        await updateOption("AutomaticDisableChannelEnabled", "true");
        const bad = await channel({ priority: 10, key: "sk-ant-revoked" });
        await channel({ priority: 0 });
        const before = await user.quota();
        const res = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] });
        expect(res.choices[0]!.message.content).toBe(CLAUDE_TEXT);
        expect(mock.requests.map((r) => r.headers["x-api-key"])).toEqual(["sk-ant-revoked", "sk-ant-mock"]);
        let status = 1;
        for (let i = 0; i < 40 && status === 1; i++) {
          await sleep(25);
          status = (await (await getDb()).channel.findUniqueOrThrow({ where: { id: bad.id } })).status;
        }
        expect(status).toBe(3);
        await settleAll();
        expect(before - (await user.quota())).toBe(814n);
        expect((await lastLog(user.id)).prompt_tokens).toBe(1212);
      });
    } else {
      it("retries Bedrock's 429 throttling and maps a refused signature to its error", async () => {
        await updateOption("RetryTimes", "1");
        await channel({ priority: 10 });
        await channel({ priority: 0 });
        behave({ failStatus: 429, failTimes: 1 });
        const res = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] });
        expect(res.choices[0]!.message.content).toBe(CLAUDE_TEXT);
        expect(mock.requests).toHaveLength(2);

        await clearRelayData();
        await updateOption("RetryTimes", "0");
        await channel({ key: `${AWS.accessKeyId}|wrong-secret|${AWS.region}` });
        await settleAll();
        const before = await user.quota();
        const failed = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
        expect(failed.status).toBe(403);
        expect(failed.error.message).toContain("signature we calculated does not match");
        await settleAll();
        expect(await user.quota()).toBe(before);
      });

      it("refuses a channel whose key is not AccessKey|SecretAccessKey|Region without calling AWS", async () => {
        await channel({ key: "just-a-key" });
        const failed = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
        expect(failed.status).toBe(500);
        expect(failed.error.message).toContain("AccessKey|SecretAccessKey|Region");
        expect(mock.requests).toHaveLength(0);
      });
    }
  });
}
