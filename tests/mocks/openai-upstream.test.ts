// The mock vendor and the pure relay modules together: every OpenAI-family adapter builds a
// request, it goes over real HTTP to the mock, and the answer goes through the stream relay /
// response usage extraction. (The full server pipeline has its own integration tests.)
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { clampUsage } from "@/lib/billing/price";
import { parseUpstreamError, shouldDisableChannel, shouldRetry } from "@/lib/relay/errors";
import { extractResponseUsage } from "@/lib/relay/openai/whole-usage";
import { OpenAIStreamRelay } from "@/lib/relay/openai/stream-relay";
import { getProvider, OPENAI_PROTOCOL_TYPES } from "@/lib/relay/providers";
import type { BuildRequestInput, UpstreamRequest } from "@/lib/relay/providers/types";
import type { ChannelConfig } from "@/lib/relay/types";
import { startOpenAIMock, type OpenAIMock } from "./openai-upstream";

let mock: OpenAIMock;
beforeAll(async () => {
  mock = await startOpenAIMock({ apiKey: "sk-up" });
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => mock.reset());

function channelFor(type: number, over: Partial<ChannelConfig> = {}): ChannelConfig {
  const base: Record<number, Partial<ChannelConfig>> = {
    3: { other: "2024-10-21" },
    8: { base_url: `${mock.url}/custom/{model}/v1/chat/completions` },
    22: { base_url: `${mock.url}/api/openapi` },
    39: { other: "acct-1" },
  };
  return {
    id: 1,
    type,
    name: "t",
    key: "sk-up",
    base_url: mock.url,
    other: "",
    openai_organization: "",
    model_mapping: {},
    status_code_mapping: {},
    auto_ban: true,
    ...base[type],
    ...over,
  };
}

function build(type: number, input: Partial<Omit<BuildRequestInput, "channel">> & { channel?: Partial<ChannelConfig> }): UpstreamRequest {
  const { channel, ...rest } = input;
  const built = getProvider(type)!.buildRequest({
    channel: channelFor(type, channel),
    mode: "chat",
    upstreamModel: "gpt-4o-mini",
    clientPath: "/v1/chat/completions",
    contentType: "application/json",
    stream: false,
    body: '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}',
    ...rest,
  });
  if (built instanceof Promise) throw new Error("OpenAI-protocol adapters build synchronously");
  return built;
}

function send(r: UpstreamRequest, init: RequestInit = {}): Promise<Response> {
  return fetch(r.url, { method: r.method, headers: r.headers, body: r.body as BodyInit, ...init });
}

async function relayStream(res: Response, relay: OpenAIStreamRelay): Promise<string> {
  const dec = new TextDecoder();
  let out = "";
  const reader = res.body!.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const o = relay.transform(value);
      if (o) out += dec.decode(o);
      if (relay.done) break;
    }
    const tail = relay.finish();
    if (tail) out += dec.decode(tail);
  } catch {
    const tail = relay.abort("interrupted");
    if (tail) out += dec.decode(tail);
  }
  return out;
}

// Ollama sends no key, so it gets its own key-less mock below.
const chatTypes = [...OPENAI_PROTOCOL_TYPES].filter((t) => getProvider(t)!.supportedModes.has("chat") && t !== 4);

describe("every chat adapter against the mock", () => {
  it.each(chatTypes)("type %i: non-stream chat reaches the right path with the right credentials", async (type) => {
    const res = await send(build(type, {}));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { object: string; id: string; choices: Array<{ message: { content: string } }> };
    expect(body.object).toBe("chat.completion");
    expect(body.id).toMatch(/^chatcmpl-/);
    expect(body.choices[0].message.content).toBe("Hello! How can I help you today?");
    const seen = mock.requests.at(-1)!;
    expect(seen.kind).toBe("chat");
    expect(seen.body).toBe('{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}');
  });

  it.each(chatTypes)("type %i: streamed chat is relayed with one [DONE] and usage", async (type) => {
    const req = build(type, { stream: true, body: '{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"hi"}]}' });
    const res = await send(req);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const relay = new OpenAIStreamRelay({ mode: "chat", model: "gpt-4o-mini", clientIncludeUsage: false, promptTokens: 9 });
    const out = await relayStream(res, relay);
    expect(out.match(/data: \[DONE\]/g)).toHaveLength(1);
    expect(relay.deliveredText).toBe("Hello! How can I help you today?");
    // Forced include_usage gives the upstream's exact usage; otherwise the relay counted locally.
    expect(relay.sawUpstreamUsage).toBe(req.forcedIncludeUsage);
    expect(relay.usage.completion_tokens).toBeGreaterThan(0);
    expect(out).not.toContain('"choices":[]'); // the client did not ask for the usage chunk
  });

  it("Ollama sends no credentials", async () => {
    expect((await send(build(4, {}))).status).toBe(401); // the keyed mock refuses it
    const open = await startOpenAIMock();
    try {
      const req = build(4, { channel: { base_url: open.url }, stream: true, body: '{"model":"llama3","stream":true,"messages":[]}' });
      const relay = new OpenAIStreamRelay({ mode: "chat", model: "llama3", clientIncludeUsage: false, promptTokens: 1 });
      await relayStream(await send(req), relay);
      expect(open.requests[0].path).toBe("/v1/chat/completions");
      expect(open.requests[0].headers.authorization).toBeUndefined();
      expect(relay.sawUpstreamUsage).toBe(true);
    } finally {
      await open.close();
    }
  });

  it("Azure path layout and api-key", async () => {
    await send(build(3, { upstreamModel: "gpt-3.5-turbo" }));
    const seen = mock.requests.at(-1)!;
    expect(seen.path).toBe("/openai/deployments/gpt-35-turbo/chat/completions");
    expect(seen.query.get("api-version")).toBe("2024-10-21");
    expect(seen.headers["api-key"]).toBe("sk-up");
  });
});

describe("other modes", () => {
  it("embeddings (OpenAI, Jina), moderations, images, rerank (Jina, SiliconFlow)", async () => {
    for (const type of [1, 38] as const) {
      const res = await send(
        build(type, {
          mode: "embeddings",
          clientPath: "/v1/embeddings",
          upstreamModel: "text-embedding-3-small",
          body: '{"model":"text-embedding-3-small","input":["a","bb"]}',
        }),
      );
      const u = extractResponseUsage("embeddings", new Uint8Array(await res.arrayBuffer()), {
        model: "text-embedding-3-small",
        promptTokens: 1,
      });
      expect((u.json as { data: unknown[] }).data).toHaveLength(2);
      expect(u.sawUpstreamUsage).toBe(true);
    }
    const mod = await (
      await send(build(1, { mode: "moderations", clientPath: "/v1/moderations", body: '{"input":"I will kill the process"}' }))
    ).json();
    expect(mod.results[0].flagged).toBe(true);
    const img = await (
      await send(
        build(1, {
          mode: "images",
          clientPath: "/v1/images/generations",
          upstreamModel: "dall-e-3",
          body: '{"model":"dall-e-3","prompt":"a cat","n":2}',
        }),
      )
    ).json();
    expect(img.data).toHaveLength(2);
    for (const type of [38, 40] as const) {
      const rr = await send(
        build(type, {
          mode: "rerank",
          clientPath: "/v1/rerank",
          upstreamModel: "jina-reranker-v2",
          body: '{"model":"jina-reranker-v2","query":"cat","documents":["a cat","dogs","kitten"],"top_n":2}',
        }),
      );
      const r = extractResponseUsage("rerank", await rr.text(), { model: "x", promptTokens: 1 });
      expect((r.json as { results: unknown[] }).results).toHaveLength(2);
      expect(r.usage.prompt_tokens).toBeGreaterThan(0);
    }
  });

  it("speech returns audio bytes", async () => {
    const res = await send(
      build(1, {
        mode: "speech",
        clientPath: "/v1/audio/speech",
        upstreamModel: "tts-1",
        body: '{"model":"tts-1","input":"hello","voice":"alloy"}',
      }),
    );
    expect(res.headers.get("content-type")).toBe("audio/mpeg");
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(Array.from(bytes.subarray(0, 3))).toEqual([0x49, 0x44, 0x33]); // "ID3"
  });

  it("transcriptions in every response format, with a mapped model", async () => {
    for (const format of ["json", "text", "srt", "vtt", "verbose_json"]) {
      const fd = new FormData();
      fd.append("model", "whisper-1");
      fd.append("response_format", format);
      fd.append("file", new Blob([new Uint8Array([1, 2, 3])]), "a.mp3");
      const req = new Request("http://x", { method: "POST", body: fd });
      const body = new Uint8Array(await req.arrayBuffer());
      const up = build(1, {
        mode: "transcriptions",
        clientPath: "/v1/audio/transcriptions",
        upstreamModel: "whisper-large",
        requestModel: "whisper-1",
        body,
        contentType: req.headers.get("content-type")!,
      });
      const res = await send(up);
      expect(res.status).toBe(200);
      const usage = extractResponseUsage("transcriptions", await res.text(), {
        model: "whisper-1",
        promptTokens: 0,
        responseFormat: format,
      });
      expect(usage.usage.completion_tokens).toBeGreaterThan(5);
      expect(mock.requests.at(-1)!.body).toContain("whisper-large");
    }
  });

  it("Cloudflare ai/run: completions (plain and streamed) and speech-to-text are converted", async () => {
    const completion = build(39, {
      mode: "completions",
      clientPath: "/v1/completions",
      upstreamModel: "@cf/meta/llama-3-8b-instruct",
      body: '{"model":"llama","prompt":"Once","max_tokens":5}',
    });
    const json = await (await send(completion)).json();
    const converted = JSON.parse(completion.response!.json(json).body);
    expect(converted).toMatchObject({ object: "text_completion", choices: [{ text: "Hello! How can I help you today?" }] });
    expect(mock.requests.at(-1)!.path).toBe("/client/v4/accounts/acct-1/ai/run/@cf/meta/llama-3-8b-instruct");

    const streamed = build(39, {
      mode: "completions",
      clientPath: "/v1/completions",
      upstreamModel: "@cf/meta/llama-3-8b-instruct",
      stream: true,
      body: '{"prompt":"Once","stream":true}',
    });
    const relay = new OpenAIStreamRelay({
      mode: "completions",
      model: "@cf/meta/llama-3-8b-instruct",
      clientIncludeUsage: true,
      promptTokens: 1,
      mapEvent: streamed.response!.streamEvent,
    });
    const out = await relayStream(await send(streamed), relay);
    expect(relay.deliveredText).toBe("Hello! How can I help you today?");
    expect(relay.sawUpstreamUsage).toBe(true);
    expect(out.match(/\[DONE\]/g)).toHaveLength(1);

    const fd = new FormData();
    fd.append("file", new Blob([new Uint8Array([9, 9, 9])]), "a.wav");
    fd.append("response_format", "text");
    const req = new Request("http://x", { method: "POST", body: fd });
    const stt = build(39, {
      mode: "transcriptions",
      clientPath: "/v1/audio/transcriptions",
      upstreamModel: "@cf/openai/whisper",
      body: new Uint8Array(await req.arrayBuffer()),
      contentType: req.headers.get("content-type")!,
    });
    const sttOut = stt.response!.json(await (await send(stt)).json());
    expect(sttOut).toEqual({ body: "Hello there, general Kenobi.", contentType: "text/plain; charset=utf-8" });
    expect(mock.requests.at(-1)!.bytes.length).toBe(3);
  });
});

describe("failure behaviours", () => {
  it("401 / 429 / HTML 502 feed the retry and auto-disable rules", async () => {
    const bad = await send(build(1, { channel: { key: "wrong" } }));
    expect(bad.status).toBe(401);
    const e401 = parseUpstreamError(401, await bad.text());
    expect(e401.code).toBe("invalid_api_key");
    expect(shouldDisableChannel(401, e401, 1)).toBe(true);

    mock.setBehaviour({ failStatus: 429 });
    const limited = await send(build(1, {}));
    expect(limited.headers.get("retry-after")).toBe("20");
    const e429 = parseUpstreamError(429, await limited.text());
    expect(e429.code).toBe("rate_limit_exceeded");
    expect(shouldRetry(429, 1)).toBe(true);
    expect(shouldDisableChannel(429, e429, 1)).toBe(false);

    mock.setBehaviour({ failStatus: 502, failBody: "<html><h1>502 Bad Gateway</h1></html>", failTimes: 1 });
    const gw = await send(build(1, {}));
    expect(parseUpstreamError(502, await gw.text()).message).toBe("bad response status code 502");
    expect((await send(build(1, {}))).status).toBe(200); // failTimes: only the first failed
  });

  it("a dropped connection mid-stream ends the client stream with an error event and [DONE]", async () => {
    mock.setBehaviour({ dropAfterChunks: 2 });
    const relay = new OpenAIStreamRelay({ mode: "chat", model: "gpt-4o-mini", clientIncludeUsage: true, promptTokens: 9, requestId: "rq" });
    const out = await relayStream(
      await send(build(1, { stream: true, body: '{"model":"gpt-4o-mini","stream":true,"messages":[]}' })),
      relay,
    );
    expect(relay.endReason).toBe("interrupted");
    expect(relay.deliveredText).toBe("Hello! How");
    expect(out).toContain('"code":"stream_interrupted"');
    expect(out.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("an error event mid-stream is relayed as an error event", async () => {
    const relay = new OpenAIStreamRelay({ mode: "chat", model: "gpt-4o-mini", clientIncludeUsage: false, promptTokens: 9 });
    const req = build(1, { stream: true, body: '{"model":"gpt-4o-mini","stream":true,"messages":[]}' });
    const out = await relayStream(
      await send(req, { headers: { ...req.headers, "x-mock-behaviour": JSON.stringify({ errorAfterChunks: 1 }) } }),
      relay,
    );
    expect(relay.endReason).toBe("upstream_error");
    expect(relay.error?.type).toBe("server_error");
    expect(out.match(/\[DONE\]/g)).toHaveLength(1);
  });

  it("streamed tool calls are accounted", async () => {
    mock.setBehaviour({
      toolCalls: [
        { name: "get_weather", arguments: '{"location":"Paris"}' },
        { name: "get_time", arguments: "{}" },
      ],
    });
    const relay = new OpenAIStreamRelay({ mode: "chat", model: "gpt-4o-mini", clientIncludeUsage: false, promptTokens: 9 });
    await relayStream(await send(build(1, { stream: true, body: '{"model":"gpt-4o-mini","stream":true,"messages":[]}' })), relay);
    expect(relay.toolCallCount).toBe(2);
    expect(relay.finishReason).toBe("tool_calls");
  });

  it("absurd usage is clamped before billing; missing usage is counted locally", async () => {
    mock.setBehaviour({ absurdUsage: true });
    const r = extractResponseUsage("chat", await (await send(build(1, {}))).text(), { model: "gpt-4o-mini", promptTokens: 9 });
    const safe = clampUsage(r.usage, { fallback: { prompt_tokens: 9 } });
    expect(safe.usage.prompt_tokens).toBe(9);
    expect(safe.usage.completion_tokens).toBe(0);
    expect(safe.flags.absurd).toEqual(["prompt_tokens"]);
    expect(safe.flags.negative).toEqual(["completion_tokens"]);

    mock.setBehaviour({ omitUsage: true, echo: true });
    const body = '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"echo me"}]}';
    const echoed = await (await send(build(1, { body }))).json();
    expect(echoed.choices[0].message.content).toBe(body);
    expect(echoed.usage).toBeUndefined();
  });

  it("a stalled upstream can be timed out by the caller", async () => {
    mock.setBehaviour({ stallMs: 2000 });
    await expect(send(build(1, {}), { signal: AbortSignal.timeout(100) })).rejects.toThrow();
  });

  it("slow streams arrive chunk by chunk", async () => {
    mock.setBehaviour({ chunkDelayMs: 30, chunks: 3 });
    const t0 = Date.now();
    const relay = new OpenAIStreamRelay({ mode: "chat", model: "gpt-4o-mini", clientIncludeUsage: false, promptTokens: 1 });
    await relayStream(await send(build(1, { stream: true, body: '{"stream":true,"messages":[]}' })), relay);
    expect(relay.firstTokenAt! - t0).toBeLessThan(Date.now() - t0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(80);
  });
});
