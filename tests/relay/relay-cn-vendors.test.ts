// Baidu Wenxin (15), Zhipu v3 (16) and GLM-4 (26), Tencent Hunyuan (23) through the real relay
// (Node entry) with the official OpenAI client, against loopback stand-ins that check each
// vendor's credentials (Baidu's access token, Zhipu's JWT, Tencent's TC3 signature): answers
// whole and streamed, the vendor's usage billed exactly, one vendor error each, and Baidu's token
// fetched once, then fetched anew after Baidu calls it invalid.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { testChannel } from "@/lib/relay/probe/test";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { BAIDU_CLIENT, type BaiduMock, startBaiduMock } from "@/tests/mocks/baidu";
import { HUNYUAN_KEY, type HunyuanMock, startHunyuanMock } from "@/tests/mocks/hunyuan";
import { startZhipuMock, ZHIPU_KEY, ZHIPU_V4_TEXT, ZHIPU_V4_USAGE, type ZhipuMock } from "@/tests/mocks/zhipu";
import { clearRelayData, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

type User = Awaited<ReturnType<typeof seedUser>>;

let relay: RelayServer;
let baidu: BaiduMock;
let zhipu: ZhipuMock;
let hunyuan: HunyuanMock;
let user: User;
let client: OpenAI;

beforeAll(async () => {
  [relay, baidu, zhipu, hunyuan] = await Promise.all([startRelay("node"), startBaiduMock(), startZhipuMock(), startHunyuanMock()]);
});
afterAll(async () => {
  await Promise.all([relay.close(), baidu.close(), zhipu.close(), hunyuan.close()]);
});
beforeEach(async () => {
  baidu.reset();
  zhipu.reset();
  hunyuan.reset();
  await clearRelayData();
  user = await seedUser();
  client = new OpenAI({ apiKey: user.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
});

const ask = (model: string) => ({
  model,
  messages: [
    { role: "system" as const, content: "简短" },
    { role: "user" as const, content: "你好" },
  ],
});

async function streamed(model: string) {
  let text = "";
  let usage: OpenAI.CompletionUsage | undefined;
  let finish: string | null | undefined;
  for await (const chunk of await client.chat.completions.create({
    ...ask(model),
    stream: true,
    stream_options: { include_usage: true },
  })) {
    text += chunk.choices[0]?.delta?.content ?? "";
    finish = chunk.choices[0]?.finish_reason ?? finish;
    if (chunk.usage) usage = chunk.usage;
  }
  return { text, usage, finish };
}

/** The last consume log: its tokens are the vendor's, and the user paid exactly its quota. */
async function expectBilled(before: bigint, prompt: number, completion: number, stream: boolean) {
  await settleAll();
  const logs = await (await getDb()).log.findMany({ where: { user_id: user.id, type: 2 }, orderBy: { id: "desc" } });
  const log = logs[0]!;
  expect(log).toMatchObject({ prompt_tokens: prompt, completion_tokens: completion, is_stream: stream });
  const other = JSON.parse(log.other) as { model_ratio: number; completion_ratio: number; group_ratio: number };
  expect(Number(log.quota)).toBe(Math.round((prompt + completion * other.completion_ratio) * other.model_ratio * other.group_ratio));
  expect(log.quota).toBeGreaterThan(0n);
  expect(before - (await user.quota())).toBe(log.quota);
}

async function failure(p: Promise<unknown>): Promise<{ status: number; message: string }> {
  const e = (await p.catch((x) => x)) as { status: number; error?: { message?: string }; message: string };
  expect(e).toBeInstanceOf(OpenAI.APIError);
  return { status: e.status, message: e.error?.message ?? e.message };
}

describe("Baidu Wenxin (15)", () => {
  const MODEL = "ERNIE-4.0-8K";
  beforeEach(async () => {
    await seedChannel({ type: 15, base_url: baidu.url, key: `${BAIDU_CLIENT.id}|${BAIDU_CLIENT.secret}`, models: `${MODEL},Embedding-V1` });
  });

  it("answers whole and streamed, billing Baidu's usage, with one token call for several requests", async () => {
    const before = await user.quota();
    const whole = await client.chat.completions.create(ask(MODEL));
    expect(whole.choices[0]!.message.content).toBe("您好，我是文心一言，很高兴为您服务。");
    expect(whole.usage).toMatchObject({ prompt_tokens: 4, completion_tokens: 12, total_tokens: 16 });
    expect(baidu.requests[0]!.path).toBe("/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro");
    expect(baidu.requests[0]!.body).toEqual({ system: "简短", messages: [{ role: "user", content: "你好" }] });
    await expectBilled(before, 4, 12, false);

    const mid = await user.quota();
    const s = await streamed(MODEL);
    expect(s).toMatchObject({ text: "您好，我是文心一言。", finish: "stop", usage: { prompt_tokens: 5, completion_tokens: 6 } });
    await expectBilled(mid, 5, 6, true);

    const emb = await client.embeddings.create({ model: "Embedding-V1", input: ["a", "b"] });
    expect(emb.data.map((d) => d.index)).toEqual([0, 1]);
    expect(emb.usage.prompt_tokens).toBe(12);
    expect(baidu.requests.at(-1)!.path).toBe("/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/embedding-v1");

    expect(baidu.tokenCalls).toBe(1);
    const tokens = new Set(baidu.requests.map((r) => r.query.get("access_token")));
    expect(tokens.size).toBe(1);
  });

  it("reports Baidu's invalid-token error without charging, then fetches a new token", async () => {
    await client.chat.completions.create(ask(MODEL)); // a token is cached
    await settleAll();
    baidu.reset();
    baidu.revokeAll();
    const before = await user.quota();
    const err = await failure(client.chat.completions.create(ask(MODEL)));
    expect(err.message).toContain("Access token invalid or no longer valid");
    expect(baidu.tokenCalls).toBe(0);
    await settleAll();
    expect(await user.quota()).toBe(before);

    const again = await client.chat.completions.create(ask(MODEL));
    expect(again.choices[0]!.message.content).toBe("您好，我是文心一言，很高兴为您服务。");
    expect(baidu.tokenCalls).toBe(1);
    const [stale, fresh] = baidu.requests.map((r) => r.query.get("access_token"));
    expect(fresh).not.toBe(stale);
  });

  it("reports the invalid-token error answered to a stream request, and refreshes the token too", async () => {
    await client.chat.completions.create(ask(MODEL));
    baidu.reset();
    baidu.revokeAll();
    const err = await streamed(MODEL).catch((e) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain("Access token invalid or no longer valid");
    const s = await streamed(MODEL);
    expect(s.text).toBe("您好，我是文心一言。");
    expect(baidu.tokenCalls).toBe(1);
  });

  it("a channel whose key Baidu will not exchange fails over to the next channel", async () => {
    await clearRelayData();
    await seedChannel({ type: 15, base_url: baidu.url, key: "ak-wrong|sk-wrong", models: MODEL, priority: 10 });
    await seedChannel({ type: 15, base_url: baidu.url, key: `${BAIDU_CLIENT.id}|${BAIDU_CLIENT.secret}`, models: MODEL, priority: 0 });
    await updateOption("RetryTimes", "1");
    try {
      const whole = await client.chat.completions.create(ask(MODEL));
      expect(whole.choices[0]!.message.content).toBe("您好，我是文心一言，很高兴为您服务。");
    } finally {
      await updateOption("RetryTimes", "0");
    }
    // The refused key was tried first and never reached the model endpoint.
    expect(baidu.tokenClients[0]).toBe("ak-wrong");
    expect(baidu.requests).toHaveLength(1);
    expect(baidu.validTokens.has(baidu.requests[0]!.query.get("access_token")!)).toBe(true);
  });
});

describe("Zhipu GLM-4 (26)", () => {
  beforeEach(async () => {
    await seedChannel({
      type: 26,
      base_url: zhipu.url,
      key: `${ZHIPU_KEY.id}.${ZHIPU_KEY.secret}`,
      models: "glm-4,glm-4-air",
      model_mapping: JSON.stringify({ "glm-4-air": "glm-missing" }),
    });
  });

  it("answers whole and streamed with a verified JWT, billing Zhipu's usage", async () => {
    const before = await user.quota();
    const whole = await client.chat.completions.create({ ...ask("glm-4"), temperature: 0 });
    expect(whole.choices[0]!.message.content).toBe(ZHIPU_V4_TEXT);
    expect(zhipu.requests[0]).toMatchObject({ path: "/api/paas/v4/chat/completions", body: { temperature: 0.01 } });
    await expectBilled(before, ZHIPU_V4_USAGE.prompt_tokens, ZHIPU_V4_USAGE.completion_tokens, false);

    const mid = await user.quota();
    const s = await streamed("glm-4");
    expect(s).toMatchObject({ text: ZHIPU_V4_TEXT, finish: "stop", usage: { prompt_tokens: 7, completion_tokens: 5 } });
    expect(zhipu.requests[1]!.body.stream_options).toBeUndefined();
    await expectBilled(mid, 7, 5, true);
  });

  it("passes Zhipu's error on (a model it does not know)", async () => {
    const err = await failure(client.chat.completions.create(ask("glm-4-air")));
    expect(err.status).toBe(400);
    expect(err.message).toContain("模型不存在");
  });
});

describe("Zhipu ChatGLM v3 (16)", () => {
  beforeEach(async () => {
    await seedChannel({
      type: 16,
      base_url: zhipu.url,
      key: `${ZHIPU_KEY.id}.${ZHIPU_KEY.secret}`,
      models: "chatglm_turbo,chatglm_std",
      model_mapping: JSON.stringify({ chatglm_std: "chatglm_missing" }),
    });
  });

  it("answers whole (invoke) and streamed (sse-invoke), billing the usage in data and meta", async () => {
    const before = await user.quota();
    const whole = await client.chat.completions.create(ask("chatglm_turbo"));
    expect(whole.choices[0]!.message.content).toBe(" 你好！我是人工智能助手 ChatGLM。\n有什么可以帮你的吗？");
    expect(zhipu.requests[0]).toMatchObject({
      path: "/api/paas/v3/model-api/chatglm_turbo/invoke",
      body: { prompt: [{ role: "user", content: "简短\n\n你好" }] },
    });
    await expectBilled(before, 6, 17, false);

    const mid = await user.quota();
    const s = await streamed("chatglm_turbo");
    expect(s).toMatchObject({ text: "你好！我是\nChatGLM", finish: "stop", usage: { prompt_tokens: 6, completion_tokens: 9 } });
    expect(zhipu.requests[1]!.path).toBe("/api/paas/v3/model-api/chatglm_turbo/sse-invoke");
    await expectBilled(mid, 6, 9, true);
  });

  it("turns a code != 200 (a model it does not know, here) into an error, charging nothing", async () => {
    const before = await user.quota();
    const err = await failure(client.chat.completions.create(ask("chatglm_std")));
    expect(err.message).toContain("Prompt 超长");
    await settleAll();
    expect(await user.quota()).toBe(before);
  });
});

describe("Baidu Wenxin (15) function calling", () => {
  const MODEL = "ERNIE-4.0-8K";
  beforeEach(async () => {
    await seedChannel({ type: 15, base_url: baidu.url, key: `${BAIDU_CLIENT.id}|${BAIDU_CLIENT.secret}`, models: MODEL });
  });

  it("relays function calling: tools as functions, function_call back as a tool call, whole and streamed", async () => {
    const parameters = { type: "object", properties: { location: { type: "string" } } };
    const tools: OpenAI.ChatCompletionTool[] = [
      { type: "function", function: { name: "get_current_weather", description: "天气", parameters } },
    ];
    const before = await user.quota();
    const whole = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "北京天气？" }], tools });
    expect(whole.choices[0]!.finish_reason).toBe("tool_calls");
    expect(whole.choices[0]!.message.tool_calls).toEqual([
      {
        id: "call_as-c2ykhmsmsk",
        type: "function",
        function: { name: "get_current_weather", arguments: '{"location":"北京","unit":"摄氏度"}' },
      },
    ]);
    expect(baidu.requests[0]!.body).toEqual({
      messages: [{ role: "user", content: "北京天气？" }],
      functions: [{ name: "get_current_weather", description: "天气", parameters }],
    });
    await expectBilled(before, 121, 38, false);

    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: "user", content: "北京天气？" },
      whole.choices[0]!.message as OpenAI.ChatCompletionAssistantMessageParam,
      { role: "tool", tool_call_id: whole.choices[0]!.message.tool_calls![0]!.id, content: '{"temperature":25}' },
    ];
    let call = { id: "", name: "", args: "" };
    let finish: string | null | undefined;
    for await (const chunk of await client.chat.completions.create({ model: MODEL, messages, tools, stream: true })) {
      for (const t of chunk.choices[0]?.delta?.tool_calls ?? [])
        call = { id: t.id ?? call.id, name: t.function?.name ?? call.name, args: call.args + (t.function?.arguments ?? "") };
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe("tool_calls");
    expect(call).toEqual({ id: "call_as-6m7tbsqk3b", name: "get_current_weather", args: '{"location":"北京","unit":"摄氏度"}' });
    expect(baidu.requests[1]!.body).toMatchObject({
      stream: true,
      messages: [
        { role: "user", content: "北京天气？" },
        { role: "assistant", function_call: { name: "get_current_weather", arguments: '{"location":"北京","unit":"摄氏度"}' } },
        { role: "function", name: "get_current_weather", content: '{"temperature":25}' },
      ],
    });
  });
});

describe("channel tests (the console's 测试)", () => {
  it("test each type through its adapter, token and signature included", async () => {
    const tester = { id: user.id, username: user.username };
    const channels = await Promise.all([
      seedChannel({ type: 15, base_url: baidu.url, key: `${BAIDU_CLIENT.id}|${BAIDU_CLIENT.secret}`, models: "ERNIE-4.0-8K" }),
      seedChannel({ type: 16, base_url: zhipu.url, key: `${ZHIPU_KEY.id}.${ZHIPU_KEY.secret}`, models: "chatglm_turbo" }),
      seedChannel({ type: 26, base_url: zhipu.url, key: `${ZHIPU_KEY.id}.${ZHIPU_KEY.secret}`, models: "glm-4" }),
      seedChannel({
        type: 23,
        base_url: hunyuan.url,
        key: `${HUNYUAN_KEY.appId}|${HUNYUAN_KEY.secretId}|${HUNYUAN_KEY.secretKey}`,
        models: "hunyuan-pro",
      }),
    ]);
    for (const ch of channels) expect(await testChannel(ch.id, tester), `type ${ch.type}`).toMatchObject({ success: true, message: "" });
    const bad = await seedChannel({
      type: 23,
      base_url: hunyuan.url,
      key: `${HUNYUAN_KEY.appId}|${HUNYUAN_KEY.secretId}|nope`,
      models: "hunyuan-pro",
    });
    const r = await testChannel(bad.id, tester);
    expect(r.success).toBe(false);
    expect(r.message).toContain("The provided credentials could not be validated");
  });
});

describe("Tencent Hunyuan (23)", () => {
  const key = (secret: string) => `${HUNYUAN_KEY.appId}|${HUNYUAN_KEY.secretId}|${secret}`;

  it("answers whole and streamed with a valid TC3 signature, billing Hunyuan's usage", async () => {
    await seedChannel({ type: 23, base_url: hunyuan.url, key: key(HUNYUAN_KEY.secretKey), models: "hunyuan-pro" });
    const before = await user.quota();
    const whole = await client.chat.completions.create(ask("hunyuan-pro"));
    expect(whole.choices[0]!.message.content).toBe("你好！有什么我可以帮助你的吗？");
    expect(hunyuan.requests[0]!.signatureOk).toBe(true);
    expect(hunyuan.requests[0]!.body).toMatchObject({
      Model: "hunyuan-pro",
      Messages: [{ Role: "system" }, { Role: "user", Content: "你好" }],
    });
    await expectBilled(before, 3, 9, false);

    const mid = await user.quota();
    const s = await streamed("hunyuan-pro");
    expect(s).toMatchObject({ text: "你好！有什么可以帮你？", finish: "stop", usage: { prompt_tokens: 3, completion_tokens: 7 } });
    expect(hunyuan.requests[1]!.signatureOk).toBe(true);
    await expectBilled(mid, 3, 7, true);
  });

  it("relays tools and tool calls, whole and streamed, and image parts as Contents", async () => {
    await seedChannel({ type: 23, base_url: hunyuan.url, key: key(HUNYUAN_KEY.secretKey), models: "hunyuan-pro" });
    const parameters = { type: "object", properties: { city: { type: "string" } } };
    const tools: OpenAI.ChatCompletionTool[] = [{ type: "function", function: { name: "get_weather", parameters } }];
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: "user", content: "北京天气？" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c1", content: "晴" },
    ];
    const before = await user.quota();
    const whole = await client.chat.completions.create({ model: "hunyuan-pro", messages, tools, tool_choice: "auto" });
    expect(whole.choices[0]!.finish_reason).toBe("tool_calls");
    expect(whole.choices[0]!.message.tool_calls).toEqual([
      { id: "call_cq8lnqhsk5d2lq1hbq8g", type: "function", function: { name: "get_weather", arguments: '{"city":"北京"}' } },
    ]);
    expect(hunyuan.requests[0]!.signatureOk).toBe(true);
    expect(hunyuan.requests[0]!.body).toMatchObject({
      ToolChoice: "auto",
      Tools: [{ Type: "function", Function: { Name: "get_weather", Parameters: JSON.stringify(parameters) } }],
      Messages: [
        { Role: "user", Content: "北京天气？" },
        { Role: "assistant", ToolCalls: [{ Id: "c1", Type: "function", Function: { Name: "get_weather", Arguments: "{}" } }] },
        { Role: "tool", ToolCallId: "c1", Content: "晴" },
      ],
    });
    await expectBilled(before, 112, 21, false);

    const calls: { index: number; id?: string; name?: string; args: string }[] = [];
    let finish: string | null | undefined;
    for await (const chunk of await client.chat.completions.create({ model: "hunyuan-pro", messages, tools, stream: true })) {
      for (const t of chunk.choices[0]?.delta?.tool_calls ?? []) {
        const c = calls[t.index] ?? { index: t.index, args: "" };
        calls[t.index] = { ...c, id: t.id ?? c.id, name: t.function?.name ?? c.name, args: c.args + (t.function?.arguments ?? "") };
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe("tool_calls");
    expect(calls).toEqual([
      { index: 0, id: "call_cq8lo2hsk5d2lq1hbqa0", name: "get_weather", args: '{"city":"北京"}' },
      { index: 1, id: "call_cq8lo2hsk5d2lq1hbqa1", name: "get_time", args: '{"city":"北京"}' },
    ]);

    await client.chat.completions.create({
      model: "hunyuan-pro",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "这是什么？" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          ],
        },
      ],
    });
    expect(hunyuan.requests[2]!.body.Messages).toEqual([
      {
        Role: "user",
        Contents: [
          { Type: "text", Text: "这是什么？" },
          { Type: "image_url", ImageUrl: { Url: "data:image/png;base64,iVBORw0KGgo=" } },
        ],
      },
    ]);
  });

  it("turns Response.Error (a wrong SecretKey) into an error, charging nothing", async () => {
    await seedChannel({ type: 23, base_url: hunyuan.url, key: key("wrong-secret"), models: "hunyuan-pro" });
    const before = await user.quota();
    const err = await failure(client.chat.completions.create(ask("hunyuan-pro")));
    expect(err.message).toContain("The provided credentials could not be validated");
    expect(hunyuan.requests[0]!.signatureOk).toBe(false);
    await settleAll();
    expect(await user.quota()).toBe(before);
  });
});
