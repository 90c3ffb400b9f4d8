import { describe, expect, it } from "vitest";
import { RelayError } from "../errors";
import { readMultipartField } from "../request/multipart";
import type { ChannelConfig, RelayMode } from "../types";
import { getProvider, OPENAI_PROTOCOL_TYPES, RELAYED_TYPES } from "./index";
import type { BuildRequestInput } from "./types";

const dec = new TextDecoder();
const text = (b: Uint8Array | string) => (typeof b === "string" ? b : dec.decode(b));

function channel(type: number, over: Partial<ChannelConfig> = {}): ChannelConfig {
  return {
    id: 1,
    type,
    name: "c",
    key: "sk-up",
    base_url: "",
    other: "",
    openai_organization: "",
    model_mapping: {},
    status_code_mapping: {},
    auto_ban: true,
    ...over,
  };
}

const CHAT =
  '{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"temperature":0,"thinking":{"type":"enabled"},"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{}}},"seed":12345678901234567890}';

function build(type: number, over: Partial<Omit<BuildRequestInput, "channel">> & { channel?: Partial<ChannelConfig> } = {}) {
  const { channel: ch, ...rest } = over;
  const input: BuildRequestInput = {
    channel: channel(type, ch),
    mode: "chat",
    upstreamModel: "gpt-4o",
    clientPath: "/v1/chat/completions",
    body: CHAT,
    contentType: "application/json",
    stream: false,
    ...rest,
  };
  const built = getProvider(type)!.buildRequest(input);
  if (built instanceof Promise) throw new Error(`type ${type} builds asynchronously: await buildRequest in its own test`);
  return built;
}

describe("adapters", () => {
  it("forwards unknown fields, explicit zeros and big integers byte for byte on every OpenAI-protocol vendor", () => {
    for (const t of RELAYED_TYPES.filter((t) => OPENAI_PROTOCOL_TYPES.has(t))) {
      const p = getProvider(t)!;
      if (!p.supportedModes.has("chat")) continue;
      const r = build(t, { channel: { base_url: "http://up.test", other: "acct" } });
      expect(text(r.body)).toBe(CHAT);
    }
  });
});

describe("OpenAI", () => {
  it("builds the URL, auth and organization headers", () => {
    const r = build(1, { channel: { openai_organization: "org-1" } });
    expect(r.url).toBe("https://api.openai.com/v1/chat/completions");
    expect(r.headers).toMatchObject({ Authorization: "Bearer sk-up", "OpenAI-Organization": "org-1", "Content-Type": "application/json" });
    expect(r.headers.Accept).toBeUndefined();
    expect(r.body).toBe(CHAT); // unchanged: the very same string
    expect(r.forcedIncludeUsage).toBe(false);
  });

  it("maps the model and forces include_usage when streaming", () => {
    const body = '{"model":"gpt-4o","stream":true,"messages":[]}';
    const r = build(1, { body, stream: true, upstreamModel: "gpt-4o-2024-11-20", requestModel: "gpt-4o" });
    expect(text(r.body)).toBe('{"model":"gpt-4o-2024-11-20","stream":true,"messages":[],"stream_options":{"include_usage":true}}');
    expect(r.forcedIncludeUsage).toBe(true);
    expect(r.headers.Accept).toBe("text/event-stream");
  });

  it("leaves the playground's group out of the upstream body, and only the playground's", () => {
    const body = '{"model":"gpt-4o","group":"vip","stream":true,"messages":[]}';
    let checked = 0;
    for (const type of OPENAI_PROTOCOL_TYPES) {
      let r: ReturnType<typeof build>;
      try {
        r = build(type, { body, stream: true, playground: true, channel: { base_url: "https://up.example", other: "2024-10-21" } });
      } catch (error) {
        if (error instanceof RelayError && error.code === "unsupported_mode") continue; // no chat (Jina)
        throw error;
      }
      checked++;
      const sent = JSON.parse(text(r.body));
      expect(sent, `type ${type}`).not.toHaveProperty("group");
      expect(sent.messages, `type ${type}`).toEqual([]);
    }
    expect(checked).toBeGreaterThan(10);
    expect(JSON.parse(text(build(1, { body, stream: true }).body)).group).toBe("vip");
  });

  it("strips /v1 behind a Cloudflare AI Gateway base", () => {
    const r = build(1, { channel: { base_url: "https://gateway.ai.cloudflare.com/v1/acc/gw/openai" } });
    expect(r.url).toBe("https://gateway.ai.cloudflare.com/v1/acc/gw/openai/chat/completions");
  });

  it("leaves a Gemini caller's top_k out on OpenAI, Azure and Mistral, and names it; lenient vendors keep it", () => {
    const body = CHAT.replace('"temperature":0,', '"temperature":0,"top_k":40,');
    for (const type of [1, 3, 42]) {
      const r = build(type, { body, converted: true, channel: { base_url: "https://up.example", other: "2024-10-21" } });
      expect(text(r.body), `type ${type}`).toBe(CHAT);
      expect(r.dropped, `type ${type}`).toEqual(["top_k"]);
      // A direct OpenAI caller's top_k is its own (the base URL may be a server that takes it).
      expect(text(build(type, { body, channel: { base_url: "https://up.example", other: "2024-10-21" } }).body)).toBe(body);
    }
    const lenient = build(43, { body, converted: true, channel: { base_url: "https://up.example" } });
    expect(text(lenient.body)).toBe(body);
    expect(lenient.dropped).toBeUndefined();
  });

  it("moves max_tokens to max_completion_tokens for reasoning models only", () => {
    const body = '{"model":"o3-mini","max_tokens":256,"messages":[]}';
    expect(text(build(1, { body, upstreamModel: "o3-mini" }).body)).toBe('{"model":"o3-mini","messages":[],"max_completion_tokens":256}');
    expect(text(build(1, { body: '{"model":"gpt-4o","max_tokens":256}' }).body)).toBe('{"model":"gpt-4o","max_tokens":256}');
  });

  it("keeps images/edits and rewrites the multipart model only when mapped", async () => {
    const fd = new FormData();
    fd.append("model", "whisper-1");
    fd.append("file", new Blob([new Uint8Array([1, 2, 3, 13, 10])]), "a.wav");
    const req = new Request("http://x", { method: "POST", body: fd });
    const body = new Uint8Array(await req.arrayBuffer());
    const ct = req.headers.get("content-type")!;
    const same = build(1, {
      mode: "transcriptions",
      clientPath: "/v1/audio/transcriptions",
      body,
      contentType: ct,
      upstreamModel: "whisper-1",
      requestModel: "whisper-1",
    });
    expect(same.body).toBe(body);
    expect(same.url).toBe("https://api.openai.com/v1/audio/transcriptions");
    expect(same.headers["Content-Type"]).toBe(ct);
    const mapped = build(1, {
      mode: "transcriptions",
      clientPath: "/v1/audio/transcriptions",
      body,
      contentType: ct,
      upstreamModel: "gpt-4o-transcribe",
      requestModel: "whisper-1",
    });
    expect(readMultipartField(mapped.body as Uint8Array, ct, "model")).toBe("gpt-4o-transcribe");
    expect(
      build(1, { mode: "images", clientPath: "/v1/images/edits", body: '{"model":"gpt-image-1"}', upstreamModel: "gpt-image-1" }).url,
    ).toBe("https://api.openai.com/v1/images/edits");
  });
});

describe("Azure", () => {
  const az = { base_url: "https://res.openai.azure.com" };
  it("uses the deployment URL, api-key and the api-version precedence query > other > default", () => {
    const r = build(3, { channel: az, upstreamModel: "gpt-3.5-turbo" });
    expect(r.url).toBe("https://res.openai.azure.com/openai/deployments/gpt-35-turbo/chat/completions?api-version=2023-06-01-preview");
    expect(r.headers["api-key"]).toBe("sk-up");
    expect(r.headers.Authorization).toBeUndefined();
    expect(build(3, { channel: { ...az, other: "2024-10-21" } }).url).toContain("?api-version=2024-10-21");
    expect(build(3, { channel: { ...az, other: "2024-10-21" }, clientQuery: "api-version=2025-01-01-preview" }).url).toContain(
      "?api-version=2025-01-01-preview",
    );
    expect(build(3, { channel: az, mode: "embeddings", clientPath: "/v1/embeddings", upstreamModel: "text-embedding-3-small" }).url).toBe(
      "https://res.openai.azure.com/openai/deployments/text-embedding-3-small/embeddings?api-version=2023-06-01-preview",
    );
  });

  it("forces include_usage only on api-versions that accept it, strips it on older ones", () => {
    const body = '{"model":"gpt-4o","stream":true,"stream_options":{"include_usage":true}}';
    const old = build(3, { channel: az, body, stream: true });
    expect(text(old.body)).toBe('{"model":"gpt-4o","stream":true}');
    expect(old.forcedIncludeUsage).toBe(false);
    const fresh = build(3, { channel: { ...az, other: "2024-10-21" }, body: '{"model":"gpt-4o","stream":true}', stream: true });
    expect(text(fresh.body)).toBe('{"model":"gpt-4o","stream":true,"stream_options":{"include_usage":true}}');
  });

  it("fails clearly without a base URL, and for unsupported modes", () => {
    expect(() => build(3)).toThrow(/no base URL/);
    expect(() => build(3, { channel: az, mode: "rerank", clientPath: "/v1/rerank" })).toThrow(RelayError);
  });
});

describe("OpenAI-compatible data entries", () => {
  it("Ollama sends no credentials", () => {
    const r = build(4);
    expect(r.url).toBe("http://localhost:11434/v1/chat/completions");
    expect(r.headers.Authorization).toBeUndefined();
    expect(build(4, { mode: "embeddings", clientPath: "/v1/embeddings" }).url).toBe("http://localhost:11434/v1/embeddings");
  });

  it("Qwen uses compatible mode, DashScope headers and clamps top_p only when present", () => {
    const r = build(17, {
      stream: true,
      body: '{"model":"qwen-max","top_p":1,"stream":true}',
      upstreamModel: "qwen-max",
      channel: { other: "search" },
    });
    expect(r.url).toBe("https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions");
    expect(r.headers).toMatchObject({ "X-DashScope-SSE": "enable", "X-DashScope-Plugin": "search" });
    expect(JSON.parse(text(r.body))).toEqual({ model: "qwen-max", top_p: 0.999, stream: true, stream_options: { include_usage: true } });
    expect(text(build(17, { body: '{"model":"qwen-max","top_p":0}', upstreamModel: "qwen-max" }).body)).toBe(
      '{"model":"qwen-max","top_p":0.001}',
    );
    const untouched = '{"model":"qwen-max","top_p":0.5}';
    expect(build(17, { body: untouched, upstreamModel: "qwen-max" }).body).toBe(untouched);
    expect(text(build(17, { body: '{"model":"qwen-max"}', upstreamModel: "qwen-max" }).body)).toBe('{"model":"qwen-max"}');
    expect(build(17).headers["X-DashScope-SSE"]).toBeUndefined();
  });

  it("default base URLs and paths", () => {
    const cases: Array<[number, RelayMode, string]> = [
      [19, "chat", "https://api.360.cn/v1/chat/completions"],
      [22, "chat", "https://fastgpt.run/api/openapi/v1/chat/completions"],
      [25, "chat", "https://api.moonshot.cn/v1/chat/completions"],
      [31, "chat", "https://api.lingyiwanwu.com/v1/chat/completions"],
      [35, "chat", "https://api.minimax.chat/v1/text/chatcompletion_v2"],
      [38, "embeddings", "https://api.jina.ai/v1/embeddings"],
      [38, "rerank", "https://api.jina.ai/v1/rerank"],
      [40, "rerank", "https://api.siliconflow.cn/v1/rerank"],
      [42, "chat", "https://api.mistral.ai/v1/chat/completions"],
      [43, "chat", "https://api.deepseek.com/v1/chat/completions"],
      [43, "completions", "https://api.deepseek.com/beta/completions"],
      [48, "chat", "https://api.x.ai/v1/chat/completions"],
    ];
    for (const [type, mode, url] of cases) {
      expect(build(type, { mode, clientPath: `/v1/${mode}`, body: '{"model":"m"}', upstreamModel: "m" }).url).toBe(url);
    }
    expect(build(42, { channel: { base_url: "https://eu.mistral.example/" } }).url).toBe("https://eu.mistral.example/v1/chat/completions");
  });

  it("Jina rejects chat with a clean unsupported-mode error", () => {
    try {
      build(38);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(RelayError);
      expect(e).toMatchObject({ status: 400, code: "unsupported_mode", local: true });
      expect((e as Error).message).toBe("chat requests are not supported by this channel (Jina, type 38)");
    }
  });

  it("stream_options policy per vendor", () => {
    const body = '{"model":"m","stream":true}';
    const forced = '{"model":"m","stream":true,"stream_options":{"include_usage":true}}';
    for (const t of [1, 4, 17, 25, 40, 43, 48]) {
      expect(text(build(t, { body, stream: true, upstreamModel: "m" }).body)).toBe(forced);
    }
    for (const t of [19, 22, 31, 35]) {
      expect(build(t, { body, stream: true, upstreamModel: "m" }).body).toBe(body);
    }
    // Mistral rejects the field (422 extra_forbidden): the client's is removed
    expect(text(build(42, { body: forced, stream: true, upstreamModel: "m" }).body)).toBe(body);
  });
});

describe("Custom", () => {
  it("uses base_url as the full URL with {model} substituted, for every mode", () => {
    const r = build(8, { channel: { base_url: "https://llm.example.com/deploy/{model}/v1/chat" }, upstreamModel: "@cf/meta/llama 3" });
    expect(r.url).toBe("https://llm.example.com/deploy/@cf/meta/llama%203/v1/chat");
    expect(r.headers.Authorization).toBe("Bearer sk-up");
    expect(build(8, { channel: { base_url: "https://x.example/emb" }, mode: "embeddings", clientPath: "/v1/embeddings" }).url).toBe(
      "https://x.example/emb",
    );
  });
});

describe("Cloudflare", () => {
  const cf = { other: "acc123" };
  it("chat and embeddings use the OpenAI-compatible endpoints of the account", () => {
    expect(build(39, { channel: cf, upstreamModel: "@cf/meta/llama-3.1-8b-instruct" }).url).toBe(
      "https://api.cloudflare.com/client/v4/accounts/acc123/ai/v1/chat/completions",
    );
    expect(build(39, { channel: cf, mode: "embeddings", clientPath: "/v1/embeddings" }).url).toBe(
      "https://api.cloudflare.com/client/v4/accounts/acc123/ai/v1/embeddings",
    );
    expect(() => build(39)).toThrow(/account id/);
  });

  it("completions go through ai/run with converted request and response", () => {
    const r = build(39, {
      channel: cf,
      mode: "completions",
      clientPath: "/v1/completions",
      upstreamModel: "@cf/meta/llama-3-8b-instruct",
      body: '{"model":"llama","prompt":["Once upon"],"max_tokens":16,"temperature":0,"echo":false,"stream":true}',
      stream: true,
    });
    expect(r.url).toBe("https://api.cloudflare.com/client/v4/accounts/acc123/ai/run/@cf/meta/llama-3-8b-instruct");
    expect(JSON.parse(text(r.body))).toEqual({ prompt: "Once upon", max_tokens: 16, temperature: 0, stream: true });
    const out = r.response!.json({
      result: { response: " a time", usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } },
      success: true,
      errors: [],
      messages: [],
    });
    expect(JSON.parse(out.body)).toMatchObject({
      object: "text_completion",
      model: "@cf/meta/llama-3-8b-instruct",
      choices: [{ text: " a time", index: 0, finish_reason: "stop" }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
    expect(r.response!.streamEvent!({ response: " a", p: "abcdef" })).toMatchObject({
      object: "text_completion",
      choices: [{ text: " a" }],
    });
    expect(r.response!.streamEvent!({ response: "", usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } })).toMatchObject({
      choices: [],
      usage: { total_tokens: 5 },
    });
  });

  it("transcriptions send the raw audio and convert the answer to the requested format", async () => {
    const audio = new Uint8Array([0x52, 0x49, 0x46, 0x46, 0x0d, 0x0a, 0x00]);
    const fd = new FormData();
    fd.append("model", "@cf/openai/whisper");
    fd.append("response_format", "srt");
    fd.append("file", new Blob([audio]), "a.wav");
    const req = new Request("http://x", { method: "POST", body: fd });
    const body = new Uint8Array(await req.arrayBuffer());
    const r = build(39, {
      channel: cf,
      mode: "transcriptions",
      clientPath: "/v1/audio/transcriptions",
      body,
      contentType: req.headers.get("content-type")!,
      upstreamModel: "@cf/openai/whisper",
    });
    expect(r.url).toBe("https://api.cloudflare.com/client/v4/accounts/acc123/ai/run/@cf/openai/whisper");
    expect(r.headers["Content-Type"]).toBe("application/octet-stream");
    expect(Array.from(r.body as Uint8Array)).toEqual(Array.from(audio));
    const vtt = "WEBVTT\n\n00:00.000 --> 00:01.500\nHello there\n\n00:01.500 --> 00:03.000\nfriend\n";
    expect(r.response!.json({ result: { text: "Hello there friend", word_count: 3, vtt }, success: true }).body).toBe(
      "1\n00:00:00,000 --> 00:00:01,500\nHello there\n\n2\n00:00:01,500 --> 00:00:03,000\nfriend\n",
    );
  });
});
