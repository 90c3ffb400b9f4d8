// Every relay door under fuzzed bodies (issue 20.5): malformed, deeply nested, huge,
// unicode-broken and type-confused bodies at OpenAI's endpoints (multipart included), Responses,
// Anthropic's and Gemini's. Whatever comes in: no 5xx (a model no channel serves is a 404), an
// error in the door's own shape, nothing sent upstream or billed for a refused body,
// and the relay answers a normal call afterwards. fast-check with a fixed seed: a failure
// reproduces, and shrinks to a small body.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const M = "gpt-4o-mini";
const MODELS = [M, "text-embedding-3-small", "dall-e-3", "tts-1", "whisper-1", "text-moderation-latest", "rerank-1"];

type Shape = "openai" | "anthropic" | "gemini";
type Door = { path: string; shape: Shape; template: Record<string, unknown>; multipart?: boolean };

const chat = { model: M, messages: [{ role: "user", content: "hi" }] };
const gemini = { contents: [{ role: "user", parts: [{ text: "hi" }] }] };
const DOORS: Door[] = [
  { path: "/v1/chat/completions", shape: "openai", template: chat },
  { path: "/v1/completions", shape: "openai", template: { model: M, prompt: "hi" } },
  { path: "/v1/embeddings", shape: "openai", template: { model: "text-embedding-3-small", input: "hi" } },
  { path: "/v1/engines/text-embedding-3-small/embeddings", shape: "openai", template: { input: "hi" } },
  { path: "/v1/moderations", shape: "openai", template: { input: "hi" } },
  { path: "/v1/images/generations", shape: "openai", template: { model: "dall-e-3", prompt: "a cat" } },
  { path: "/v1/audio/speech", shape: "openai", template: { model: "tts-1", input: "hi", voice: "alloy" } },
  { path: "/v1/audio/transcriptions", shape: "openai", template: { model: "whisper-1" }, multipart: true },
  { path: "/v1/audio/translations", shape: "openai", template: { model: "whisper-1" }, multipart: true },
  { path: "/v1/rerank", shape: "openai", template: { model: "rerank-1", query: "q", documents: ["a", "b"] } },
  { path: "/v1/responses", shape: "openai", template: { model: M, input: "hi" } },
  { path: "/v1/messages", shape: "anthropic", template: { ...chat, max_tokens: 16 } },
  { path: "/v1/messages/count_tokens", shape: "anthropic", template: chat },
  { path: `/v1beta/models/${M}:generateContent`, shape: "gemini", template: gemini },
  { path: `/v1beta/models/${M}:streamGenerateContent?alt=sse`, shape: "gemini", template: gemini },
  { path: `/v1beta/models/${M}:countTokens`, shape: "gemini", template: gemini },
];

const enc = new TextEncoder();
const deepArray = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;
const deepSchema = (n: number) => `${'{"type":"object","properties":{"a":'.repeat(n)}{"type":"string"}${"}}".repeat(n)}`;

/** A template as JSON text with `at` (a member of the template, or a place tools live) replaced by raw JSON text. */
function withRaw(template: Record<string, unknown>, at: string, raw: string): string {
  const marker = "\u0000RAW\u0000";
  const copy: Record<string, unknown> = structuredClone(template);
  if (at === "content" && Array.isArray(copy.messages)) (copy.messages as Record<string, unknown>[])[0]!.content = marker;
  else if (at === "parts" && Array.isArray(copy.contents)) (copy.contents as Record<string, unknown>[])[0]!.parts = marker;
  else if (at === "tools-openai") copy.tools = [{ type: "function", function: { name: "f", parameters: marker } }];
  else if (at === "tools-anthropic") copy.tools = [{ name: "f", input_schema: marker }];
  else if (at === "tools-gemini") copy.tools = [{ functionDeclarations: [{ name: "f", parameters: marker }] }];
  else copy[at] = marker;
  return JSON.stringify(copy).replace(JSON.stringify(marker), raw);
}

const keysOf = (t: Record<string, unknown>) => [...Object.keys(t), "content", "parts", "tools-openai", "tools-anthropic", "tools-gemini"];

/** A body for `door`, of one of the kinds the issue names. */
function bodyFor(door: Door): fc.Arbitrary<{ kind: string; bytes: Uint8Array }> {
  const t = door.template;
  const at = fc.constantFrom(...keysOf(t));
  const text = (kind: string) => (s: string) => ({ kind, bytes: enc.encode(s) });
  return fc.oneof(
    // malformed: random text, a cut-off body, random bytes
    fc.string({ maxLength: 200 }).map(text("malformed")),
    fc.nat({ max: 200 }).map((n) => text("truncated")(JSON.stringify(t).slice(0, n % JSON.stringify(t).length))),
    fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ kind: "bytes", bytes })),
    // deeply nested, at the top or inside a member
    fc
      .tuple(at, fc.integer({ min: 1_000, max: 20_000 }), fc.constantFrom(deepArray, deepObject, deepSchema))
      .map(([where, n, deep]) => text("deep")(withRaw(t, where, deep(n)))),
    fc.integer({ min: 1_000, max: 20_000 }).map((n) => text("deep-top")(deepArray(n))),
    // huge: a long text (past the size read off the event loop), many messages, a wide array
    fc.integer({ min: 100_000, max: 1_500_000 }).map((n) => text("huge")(withRaw(t, "content", JSON.stringify("a".repeat(n))))),
    fc
      .integer({ min: 1_000, max: 30_000 })
      .map((n) => text("wide")(withRaw(t, "messages", JSON.stringify(Array.from({ length: n }, () => ({ role: "user", content: "x" })))))),
    // unicode-broken: lone surrogates (valid JSON escapes) and invalid UTF-8 bytes inside strings
    fc
      .tuple(at, fc.constantFrom('"\\ud800"', '"a\\udc00b"', '"\\ud83d"', '["\\udfff"]'))
      .map(([where, raw]) => text("surrogate")(withRaw(t, where, raw))),
    fc.tuple(at, fc.constantFrom([0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80])).map(([where, bad]) => {
      const [head, tail] = withRaw(t, where, '"\u0001"').split("\u0001") as [string, string];
      return { kind: "bad-utf8", bytes: new Uint8Array([...enc.encode(head), ...bad, ...enc.encode(tail)]) };
    }),
    // type-confused: a member of the template (or tools) replaced by any JSON value
    fc.tuple(at, fc.jsonValue({ maxDepth: 4 })).map(([where, v]) => text("confused")(withRaw(t, where, JSON.stringify(v) ?? "null"))),
    fc.jsonValue({ maxDepth: 3 }).map((v) => text("confused-top")(JSON.stringify(v) ?? "null")),
  );
}

/** A multipart body: well-formed with confused fields, a part cut off, or no boundary at all. */
function multipartFor(): fc.Arbitrary<{ kind: string; bytes: Uint8Array; contentType: string }> {
  const boundary = "fuzzBoundary7MA4YWxk";
  const part = (name: string, value: string, file = false) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file ? '; filename="a.wav"\r\nContent-Type: audio/wav' : ""}\r\n\r\n${value}\r\n`;
  return fc.oneof(
    fc
      .tuple(fc.string({ maxLength: 50 }), fc.string({ maxLength: 50 }), fc.boolean(), fc.boolean())
      .map(([model, file, withFile, closed]) => ({
        kind: "multipart",
        bytes: enc.encode(`${part("model", model)}${withFile ? part("file", file, true) : ""}${closed ? `--${boundary}--\r\n` : ""}`),
        contentType: `multipart/form-data; boundary=${boundary}`,
      })),
    fc
      .uint8Array({ maxLength: 300 })
      .map((bytes) => ({ kind: "multipart-bytes", bytes, contentType: `multipart/form-data; boundary=${boundary}` })),
    fc.string({ maxLength: 100 }).map((s) => ({ kind: "multipart-no-boundary", bytes: enc.encode(s), contentType: "multipart/form-data" })),
    fc.integer({ min: 1_000, max: 20_000 }).map((n) => ({
      kind: "multipart-deep",
      bytes: enc.encode(`${part("model", "whisper-1")}${part("file", "RIFF", true)}${part("prompt", deepArray(n))}--${boundary}--\r\n`),
      contentType: `multipart/form-data; boundary=${boundary}`,
    })),
  );
}

/** The error body in the door's own shape. */
function inShape(shape: Shape, body: unknown): boolean {
  const b = body as Record<string, any>;
  if (shape === "anthropic") return b?.type === "error" && typeof b.error?.type === "string" && typeof b.error?.message === "string";
  if (shape === "gemini") return typeof b?.error?.code === "number" && typeof b.error?.message === "string";
  return typeof b?.error?.message === "string" && typeof b.error?.type === "string";
}

describe("every relay door under fuzzed bodies", () => {
  let mock: OpenAIMock;
  let relay: RelayServer;
  let user: Awaited<ReturnType<typeof seedUser>>;

  beforeAll(async () => {
    mock = await startOpenAIMock();
    relay = await startRelay("node");
    await clearRelayData();
    await seedChannel({ base_url: mock.url, models: MODELS.join(",") });
    // The prompt filter walks message content: on, so fuzzed content goes through it too.
    await updateOption("CheckSensitiveEnabled", "true");
    await updateOption("CheckSensitiveOnPromptEnabled", "true");
    await updateOption("SensitiveWords", "forbidden fruit");
    user = await seedUser();
  });
  afterAll(async () => {
    await relay?.close();
    await mock?.close();
  });

  it("answers each in its shape, never 5xx, and sends or bills nothing for what it refuses", async () => {
    const before = await user.quota();
    const seen = new Map<string, number>();
    const arbitrary = fc.constantFrom(...DOORS).chain((door) =>
      (door.multipart ? multipartFor() : bodyFor(door).map((b) => ({ ...b, contentType: "application/json" }))).map((body) => ({
        door,
        body,
        // A failure names the case, not 200 KB of brackets.
        [fc.toStringMethod]: () =>
          `${door.path} ${body.kind}: ${new TextDecoder().decode(body.bytes.subarray(0, 120))}… (${body.bytes.length} bytes)`,
      })),
    );
    await fc.assert(
      fc.asyncProperty(arbitrary, async ({ door, body }) => {
        const hits = mock.requests.length;
        const headers: Record<string, string> = { "content-type": body.contentType };
        if (door.shape === "anthropic") Object.assign(headers, { "x-api-key": user.key, "anthropic-version": "2023-06-01" });
        else if (door.shape === "gemini") headers["x-goog-api-key"] = user.key;
        else headers.authorization = `Bearer ${user.key}`;
        const res = await fetch(`${relay.url}${door.path}`, { method: "POST", headers, body: Buffer.from(body.bytes) });
        const text = await res.text();
        const label = `${door.path} ${body.kind} (${body.bytes.length} bytes) → ${res.status} ${text.slice(0, 200)}`;
        seen.set(`${res.status}`, (seen.get(`${res.status}`) ?? 0) + 1);
        expect(res.status < 500, label).toBe(true);
        if (res.status >= 400) {
          expect(inShape(door.shape, JSON.parse(text)), label).toBe(true);
          expect(mock.requests.length, label).toBe(hits);
        }
      }),
      { seed: Number(process.env.FUZZ_SEED ?? 20_2005), numRuns: Number(process.env.FUZZ_RUNS ?? 500), endOnFailure: true },
    );
    // Refused bodies were neither sent nor billed: every consumption row is a call that reached the
    // upstream, and the balance moved by exactly what those rows say.
    await settleAll();
    const logs = await (await getDb()).log.findMany({ where: { user_id: user.id, type: 2 }, select: { quota: true } });
    expect(logs.length).toBeLessThanOrEqual(mock.requests.length);
    const billed = logs.reduce((sum, l) => sum + BigInt(l.quota), 0n);
    expect(before - (await user.quota())).toBe(billed);
    expect(seen.size).toBeGreaterThan(1);

    // And the relay still serves a normal call.
    const client = new OpenAI({ apiKey: user.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
    const done = await client.chat.completions.create({ model: M, messages: [{ role: "user", content: "hi" }] });
    expect(done.choices[0]!.message.content).toBeTruthy();
  }, 180_000);
});
