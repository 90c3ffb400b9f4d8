// Every OpenAI-family channel type through the real relay (Node entry) with the official client:
// the request reaches the vendor's path with the vendor's credentials, and the answer comes back
// whole and streamed.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { getProvider, OPENAI_PROTOCOL_TYPES } from "@/lib/relay/providers";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, seedChannel, seedUser, startRelay, type RelayServer } from "@/tests/helpers/relay";

const MODEL = "gpt-4o-mini";

/** Where each type must send a chat request, and how it must authenticate. */
const EXPECT: Record<number, { path: RegExp; auth: (h: Record<string, unknown>) => boolean; channel?: Record<string, unknown> }> = {
  1: { path: /^\/v1\/chat\/completions$/, auth: (h) => h.authorization === "Bearer sk-up" },
  3: {
    path: /^\/openai\/deployments\/gpt-4o-mini\/chat\/completions$/,
    auth: (h) => h["api-key"] === "sk-up",
    channel: { other: "2024-10-21" },
  },
  4: { path: /^\/v1\/chat\/completions$/, auth: (h) => h.authorization === undefined },
  8: {
    path: /^\/custom\/gpt-4o-mini\/v1\/chat\/completions$/,
    auth: (h) => h.authorization === "Bearer sk-up",
    channel: { base_url: "{mock}/custom/{model}/v1/chat/completions" },
  },
  17: { path: /^\/compatible-mode\/v1\/chat\/completions$/, auth: (h) => h.authorization === "Bearer sk-up" },
  19: { path: /^\/v1\/chat\/completions$/, auth: (h) => h.authorization === "Bearer sk-up" },
  22: {
    path: /^\/api\/openapi\/v1\/chat\/completions$/,
    auth: (h) => h.authorization === "Bearer sk-up",
    channel: { base_url: "{mock}/api/openapi" },
  },
  25: { path: /^\/v1\/chat\/completions$/, auth: (h) => h.authorization === "Bearer sk-up" },
  31: { path: /^\/v1\/chat\/completions$/, auth: (h) => h.authorization === "Bearer sk-up" },
  35: { path: /^\/v1\/text\/chatcompletion_v2$/, auth: (h) => h.authorization === "Bearer sk-up" },
  39: {
    path: /^\/client\/v4\/accounts\/acct-1\/ai\/v1\/chat\/completions$/,
    auth: (h) => h.authorization === "Bearer sk-up",
    channel: { other: "acct-1" },
  },
  40: { path: /^\/v1\/chat\/completions$/, auth: (h) => h.authorization === "Bearer sk-up" },
  42: { path: /^\/v1\/chat\/completions$/, auth: (h) => h.authorization === "Bearer sk-up" },
  43: { path: /^\/(v1\/)?chat\/completions$/, auth: (h) => h.authorization === "Bearer sk-up" },
  48: { path: /^\/v1\/chat\/completions$/, auth: (h) => h.authorization === "Bearer sk-up" },
};

const chatTypes = [...OPENAI_PROTOCOL_TYPES].filter((t) => getProvider(t)!.supportedModes.has("chat"));

describe("every OpenAI-family channel type through the relay", () => {
  let mock: OpenAIMock;
  let relay: RelayServer;
  let client: OpenAI;

  beforeAll(async () => {
    mock = await startOpenAIMock();
    relay = await startRelay("node");
  });
  afterAll(async () => {
    await relay.close();
    await mock.close();
  });
  beforeEach(async () => {
    mock.reset();
    await clearRelayData();
    client = new OpenAI({ apiKey: (await seedUser()).key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
  });

  it("knows where every chat type goes", () => {
    expect(chatTypes.filter((t) => !EXPECT[t])).toEqual([]);
  });

  it.each(chatTypes)("type %i: chat, whole and streamed", async (type) => {
    const exp = EXPECT[type]!;
    const channel = Object.fromEntries(
      Object.entries(exp.channel ?? {}).map(([k, v]) => [k, typeof v === "string" ? v.replace("{mock}", mock.url) : v]),
    );
    await seedChannel({ base_url: mock.url, models: MODEL, type, key: "sk-up", ...channel });
    const whole = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] });
    expect(whole.choices[0]!.message.content).toBe("Hello! How can I help you today?");
    const seen = mock.requests.at(-1)!;
    expect(seen.path).toMatch(exp.path);
    expect(exp.auth(seen.headers as Record<string, unknown>)).toBe(true);
    let text = "";
    for await (const chunk of await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "hi" }],
      stream: true,
    })) {
      text += chunk.choices[0]?.delta?.content ?? "";
    }
    expect(text).toBe("Hello! How can I help you today?");
  });

  it("Jina (38) serves embeddings and rerank, and refuses chat cleanly", async () => {
    await seedChannel({ base_url: mock.url, models: "jina-clip-v1,jina-reranker-v2-base-multilingual", type: 38, key: "sk-up" });
    const emb = await client.embeddings.create({ model: "jina-clip-v1", input: "hello" });
    expect(emb.data).toHaveLength(1);
    expect(mock.requests.at(-1)!.path).toBe("/v1/embeddings");
    const chat = await client.chat.completions
      .create({ model: "jina-clip-v1", messages: [{ role: "user", content: "hi" }] })
      .catch((e) => e);
    expect(chat.status).toBe(400);
  });

  it("Azure takes api-version from the client's query over the channel's", async () => {
    await seedChannel({ base_url: mock.url, models: MODEL, type: 3, key: "sk-up", other: "2024-10-21" });
    const res = await fetch(`${relay.url}/v1/chat/completions?api-version=2025-01-01-preview`, {
      method: "POST",
      headers: { authorization: `Bearer ${client.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(200);
    expect(mock.requests.at(-1)!.query.get("api-version")).toBe("2025-01-01-preview");
  });
});
