// The Gemini protocol's pure parts: paths, decoding into the canonical request, encoding whole
// answers and streams, errors. Fixtures are in Google's and OpenAI's wire shapes.
import type { Obj } from "@/lib/obj";
import { CollectedNotes } from "@/lib/relay/inbound/notes";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { InboundCall } from "@/lib/relay/inbound";
import type { InboundInfo } from "@/lib/relay/inbound/types";
import { RelayError } from "@/lib/relay/errors";
import { decodeGenerateContent, jsonSchema } from "./decode-request";
import { gemini } from "./index";

const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, "__fixtures__", name), "utf8");
const q = (s = "") => new URLSearchParams(s);
const info = (over: Partial<InboundInfo> = {}): InboundInfo => ({
  requestId: "req-1",
  model: "gpt-4o-mini",
  created: 0,
  request: {},
  route: { model: "gpt-4o-mini", stream: true },
  ...over,
});

function refusal(fn: () => unknown): RelayError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(RelayError);
    return e as RelayError;
  }
  throw new Error("expected a refusal");
}

describe("gemini paths", () => {
  it("names the model and the method; alt=sse streams, no alt answers the array", () => {
    expect(gemini.match("POST", "/v1beta/models/gemini-2.0-flash:generateContent", q())).toEqual({
      call: { model: "gemini-2.0-flash", stream: false },
    });
    expect(gemini.match("POST", "/v1beta/models/gemini-2.0-flash:streamGenerateContent", q("alt=sse"))).toEqual({
      call: { model: "gemini-2.0-flash", stream: true },
    });
    expect(gemini.match("POST", "/v1beta/models/gemini-2.0-flash:streamGenerateContent", q())).toEqual({
      call: { model: "gemini-2.0-flash", stream: false, variant: "json-array" },
    });
    // a model name holding a colon (Ollama style), `models/` twice, percent-encoding, the v1 form
    expect(gemini.match("POST", "/v1beta/models/qwen:7b:generateContent", q())).toEqual({ call: { model: "qwen:7b", stream: false } });
    expect(gemini.match("POST", "/v1beta/models/models%2Fgpt-4o:generateContent", q())).toEqual({
      call: { model: "gpt-4o", stream: false },
    });
    expect(gemini.match("POST", "/v1/models/gpt-4o:generateContent", q())).toEqual({ call: { model: "gpt-4o", stream: false } });
    expect(gemini.match("POST", "/v1beta/models/gpt-4o%3AgenerateContent", q())).toEqual({ call: { model: "gpt-4o", stream: false } });
  });

  it("serves the model list, one model and countTokens; leaves the rest alone", () => {
    expect(gemini.match("GET", "/v1beta/models", q())).toHaveProperty("serve");
    expect(gemini.match("GET", "/v1beta/models/gpt-4o", q())).toHaveProperty("serve");
    expect(gemini.match("POST", "/v1beta/models/gpt-4o:countTokens", q())).toHaveProperty("serve");
    expect(gemini.match("GET", "/v1/models", q())).toBeNull(); // OpenAI's list
    expect(gemini.match("POST", "/v1/chat/completions", q())).toBeNull();
    expect(gemini.match("POST", "/v1/models/gpt-4o:embedContent", q())).toBeNull();
  });

  it("refuses the rest of /v1beta and malformed paths in its own shape", async () => {
    for (const [method, p] of [
      ["POST", "/v1beta/models/gpt-4o:embedContent"],
      ["GET", "/v1beta/models/gpt-4o:generateContent"],
      ["GET", "/v1beta/files"],
      ["POST", "/v1beta/models/%E0%A4%A:generateContent"],
    ] as const) {
      const match = gemini.match(method, p, q());
      expect(match, p).toHaveProperty("serve");
      const error = await (match as { serve: (r: never, id: string) => Promise<unknown> }).serve({} as never, "r").catch((e: unknown) => e);
      expect(error, p).toBeInstanceOf(RelayError);
      expect((error as RelayError).status, p).toBe(p.includes("%E0") ? 400 : 404);
    }
  });
});

describe("decodeGenerateContent", () => {
  it("decodes a function-calling conversation with its settings", () => {
    const body = JSON.parse(fixture("request-function-calling.json"));
    expect(decodeGenerateContent(body, { model: "gpt-4o-mini", stream: true })).toEqual({
      model: "gpt-4o-mini",
      stream: true,
      messages: [
        { role: "system", content: "You are terse.\nAnswer in English." },
        { role: "user", content: "What's the weather in Paris and in Rome?" },
        {
          role: "assistant",
          content: "Let me check.",
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
            { id: "call_2", type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"}' } },
          ],
        },
        // answers match the calls by name, in order
        { role: "tool", tool_call_id: "call_1", content: '{"temperature":21,"unit":"C"}' },
        { role: "tool", tool_call_id: "call_2", content: '{"temperature":25,"unit":"C"}' },
      ],
      // ANY with one allowed function: only it is offered, and it is forced
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Current weather for a city",
            parameters: {
              type: "object",
              properties: {
                city: { type: "string", description: "City name" },
                days: { type: ["integer", "null"] },
                units: { type: "array", items: { type: "string", enum: ["C", "F"] } },
              },
              required: ["city"],
            },
          },
        },
      ],
      tool_choice: { type: "function", function: { name: "get_weather" } },
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      max_tokens: 256,
      stop: ["END"],
      n: 1,
    });
  });

  it("decodes media parts, ids on calls, and tool modes", () => {
    const out = decodeGenerateContent(
      {
        contents: [
          {
            parts: [
              { text: "Describe" },
              { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
              { fileData: { mimeType: "image/jpeg", fileUri: "https://example.com/cat.jpg" } },
              { inlineData: { mimeType: "audio/wav", data: "UklGRg==" } },
              { inlineData: { mimeType: "application/pdf", data: "JVBERi0=" } },
            ],
          },
          { role: "model", parts: [{ text: "thinking…", thought: true }, { functionCall: { id: "fc-9", name: "look", args: {} } }] },
          { role: "user", parts: [{ functionResponse: { id: "fc-9", name: "look", response: { seen: "cat" } } }, { text: "And?" }] },
        ],
        tools: [{ functionDeclarations: [{ name: "look", parametersJsonSchema: { type: "object", properties: {} } }] }],
        toolConfig: { functionCallingConfig: { mode: "NONE" } },
        generationConfig: { responseMimeType: "application/json" },
      },
      { model: "m" },
    );
    expect(out.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Describe" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
          { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
          { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=" } },
        ],
      },
      { role: "assistant", content: null, tool_calls: [{ id: "fc-9", type: "function", function: { name: "look", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "fc-9", content: '{"seen":"cat"}' },
      { role: "user", content: "And?" },
    ]);
    expect(out.tool_choice).toBe("none");
    expect(out.response_format).toEqual({ type: "json_object" });
    expect(out.stream).toBe(false);
  });

  it("reads fields by their proto names too (Google's own curl examples), never renaming free-form members", () => {
    const body = JSON.parse(fixture("request-snake-case.json"));
    expect(decodeGenerateContent(body, { model: "m" })).toEqual({
      model: "m",
      stream: false,
      messages: [
        { role: "system", content: "You are a cat. Your name is Neko." },
        {
          role: "user",
          content: [
            { type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/4AAQSkZJRg==" } },
            { type: "text", text: "Caption this image." },
          ],
        },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup_breed", arguments: '{"photo_id":"p_1"}' } }],
        },
        { role: "tool", tool_call_id: "call_1", content: '{"breed_name":"tabby"}' },
      ],
      tools: [
        {
          type: "function",
          function: { name: "lookup_breed", parameters: { type: "object", properties: { photo_id: { type: "string" } } } },
        },
      ],
      tool_choice: { type: "function", function: { name: "lookup_breed" } },
      max_tokens: 800,
      top_p: 0.8,
      stop: ["Title"],
      response_format: {
        type: "json_schema",
        json_schema: { name: "response", schema: { type: "object", properties: { caption_text: { type: "string" } } } },
      },
    });
  });

  it("turns responseSchema into a json_schema response format", () => {
    const out = decodeGenerateContent(
      {
        contents: [{ parts: [{ text: "x" }] }],
        generationConfig: {
          responseMimeType: "application/json",
          responseSchema: { type: "OBJECT", properties: { a: { type: "NUMBER" } }, propertyOrdering: ["a"] },
        },
        toolConfig: { functionCallingConfig: { mode: "AUTO" } },
      },
      { model: "m" },
    );
    expect(out.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "response", schema: { type: "object", properties: { a: { type: "number" } } } },
    });
    // tool settings without tools say nothing
    expect(out.tool_choice).toBeUndefined();
    expect(jsonSchema({ anyOf: [{ type: "STRING" }, { type: "INTEGER", example: 3 }] })).toEqual({
      anyOf: [{ type: "string" }, { type: "integer" }],
    });
  });

  it("decodes a Gemini CLI turn: system role, parametersJsonSchema, toolConfig, thinking, topK, responseJsonSchema", () => {
    // The shape @google/gemini-cli sends: systemInstruction with a role, declarations with
    // parametersJsonSchema, and generation settings it has and others do not (thinkingConfig).
    const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
    const notes = new CollectedNotes();
    const out = decodeGenerateContent(
      {
        contents: [{ role: "user", parts: [{ text: "list files" }] }],
        systemInstruction: { role: "user", parts: [{ text: "You are an interactive CLI agent." }] },
        tools: [
          {
            functionDeclarations: [
              {
                name: "list_directory",
                description: "Lists a directory.",
                parametersJsonSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
              },
            ],
          },
          { googleSearch: {} },
        ],
        toolConfig: { functionCallingConfig: { mode: "AUTO" } },
        generationConfig: {
          temperature: 0,
          topP: 1,
          topK: 64,
          thinkingConfig: { includeThoughts: true, thinkingBudget: 8192 },
          responseMimeType: "application/json",
          responseJsonSchema: schema,
          mediaResolution: "MEDIA_RESOLUTION_MEDIUM",
        },
      },
      { model: "gpt-4o", stream: true },
      notes,
    );
    expect(out).toEqual({
      model: "gpt-4o",
      stream: true,
      messages: [
        { role: "system", content: "You are an interactive CLI agent." },
        { role: "user", content: "list files" },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "list_directory",
            description: "Lists a directory.",
            parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
          },
        },
      ],
      tool_choice: "auto",
      temperature: 0,
      top_p: 1,
      top_k: 64,
      reasoning_effort: "medium",
      response_format: { type: "json_schema", json_schema: { name: "response", schema } },
    });
    expect(notes.refusal).toBeNull();
    expect(notes.dropped).toEqual(["google_search"]);
  });

  it("lower-cases Google's type names in JSON Schemas (Gemini CLI's router sends OBJECT, STRING), keeping the rest", () => {
    // As Gemini CLI 0.61.0 sends its router call (tests/fixtures/agents/gemini-cli).
    const out = decodeGenerateContent(
      {
        contents: [{ role: "user", parts: [{ text: "hi" }] }],
        generationConfig: {
          responseMimeType: "application/json",
          responseJsonSchema: {
            type: "OBJECT",
            properties: {
              reasoning: { type: "STRING", description: "why" },
              score: { type: ["INTEGER", "null"], minimum: 1 },
              tags: { type: "ARRAY", items: { type: "STRING" } },
              // A property named "type" is a name, not a type.
              type: { anyOf: [{ type: "STRING" }, { $ref: "#/$defs/t" }] },
            },
            $defs: { t: { type: "NUMBER" } },
            required: ["reasoning"],
          },
        },
        tools: [
          { functionDeclarations: [{ name: "f", parametersJsonSchema: { type: "object", properties: { a: { type: "BOOLEAN" } } } }] },
        ],
      },
      { model: "m" },
    );
    expect((out.response_format as Obj).json_schema).toEqual({
      name: "response",
      schema: {
        type: "object",
        properties: {
          reasoning: { type: "string", description: "why" },
          score: { type: ["integer", "null"], minimum: 1 },
          tags: { type: "array", items: { type: "string" } },
          type: { anyOf: [{ type: "string" }, { $ref: "#/$defs/t" }] },
        },
        $defs: { t: { type: "number" } },
        required: ["reasoning"],
      },
    });
    expect((out.tools as Obj[])[0]).toEqual({
      type: "function",
      function: { name: "f", parameters: { type: "object", properties: { a: { type: "boolean" } } } },
    });
  });

  it("maps thinkingConfig to reasoning_effort: budget 0 is none, budgets by size, levels by name, dynamic says nothing", () => {
    const effort = (thinkingConfig: unknown) =>
      decodeGenerateContent({ contents: [{ parts: [{ text: "hi" }] }], generationConfig: { thinkingConfig } }, { model: "m" })
        .reasoning_effort;
    expect(effort({ thinkingBudget: 0 })).toBe("none");
    expect(effort({ thinkingBudget: 512 })).toBe("low");
    expect(effort({ thinking_budget: 1024 })).toBe("low");
    expect(effort({ thinkingBudget: 4000 })).toBe("medium");
    expect(effort({ thinkingBudget: 24576 })).toBe("high");
    expect(effort({ thinkingLevel: "LOW" })).toBe("low");
    expect(effort({ thinkingLevel: "high", includeThoughts: true })).toBe("high");
    expect(effort({ thinkingBudget: -1 })).toBeUndefined();
    expect(effort({ includeThoughts: true })).toBeUndefined();
    expect(effort({ thinkingLevel: "THINKING_LEVEL_UNSPECIFIED" })).toBeUndefined();
  });

  it("refuses what cannot be valid or carried elsewhere, in plain words", () => {
    const ok = { contents: [{ parts: [{ text: "hi" }] }] };
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /contents must be a non-empty array/],
      [{ contents: [] }, /contents must be a non-empty array/],
      [{ contents: ["hi"] }, /contents\[0\] must be an object/],
      [{ contents: [{ role: "assistant", parts: [{ text: "x" }] }] }, /role must be "user" or "model"/],
      [{ contents: [{ parts: "hi" }] }, /parts must be an array/],
      [{ contents: [{ parts: [{ bogus: 1 }] }] }, /has no supported data/],
      [{ contents: [{ parts: [{ inlineData: { data: "x" } }] }] }, /inlineData needs mimeType/],
      [{ contents: [{ parts: [{ fileData: { mimeType: "video/mp4", fileUri: "gs://x" } }] }] }, /only images can be given by URI/],
      [{ contents: [{ parts: [{ functionResponse: { name: "f", response: {} } }] }] }, /answers no earlier functionCall/],
      [{ contents: [{ parts: [{ functionCall: { name: "f" } }] }] }, /belongs in a "model" turn/],
      [{ ...ok, tools: [{ functionDeclarations: [{ description: "no name" }] }] }, /needs a name/],
      [
        { ...ok, tools: [{ functionDeclarations: [{ name: "f" }] }], toolConfig: { functionCallingConfig: { mode: "SOMETIMES" } } },
        /mode must be AUTO, ANY or NONE/,
      ],
      [
        {
          ...ok,
          tools: [{ functionDeclarations: [{ name: "f" }] }],
          toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["g"] } },
        },
        /undeclared function: g/,
      ],
      [{ ...ok, generationConfig: { temperature: "hot" } }, /temperature must be a number/],
      [{ ...ok, generationConfig: { maxOutputTokens: 0 } }, /maxOutputTokens must be at least 1/],
      [{ ...ok, generationConfig: { stopSequences: "END" } }, /stopSequences must be strings/],
      [{ ...ok, generationConfig: { responseMimeType: "text/x.enum" } }, /not supported/],
      [{ ...ok, generationConfig: { responseSchema: { type: "OBJECT" } } }, /needs responseMimeType/],
      [{ ...ok, cachedContent: "cachedContents/abc" }, /cachedContent is not supported/],
      [{ ...ok, systemInstruction: { parts: [{ inlineData: {} }] } }, /systemInstruction parts must be text/],
    ];
    for (const [body, message] of cases) {
      const e = refusal(() => decodeGenerateContent(body, { model: "m" }));
      expect(e.status, JSON.stringify(body)).toBe(400);
      expect(e.message, JSON.stringify(body)).toMatch(message);
    }
  });

  it("refuses cachedContent and drops Google's built-in tools by name, leaving both out (a Gemini channel takes them as sent)", () => {
    const refused: RelayError[] = [];
    const dropped: string[] = [];
    const out = decodeGenerateContent(
      {
        contents: [{ role: "user", parts: [{ text: "hi" }] }],
        cachedContent: "cachedContents/abc",
        tools: [
          { googleSearch: {}, functionDeclarations: [{ name: "f" }] },
          { codeExecution: {} },
          { url_context: {} },
          { googleMaps: {} },
        ],
      },
      { model: "m" },
      { refuse: (e) => refused.push(e), drop: (f) => dropped.push(f) },
    );
    expect(refused.map((e) => e.message)).toEqual([expect.stringMatching(/cachedContent/)]);
    expect(dropped).toEqual(["google_search", "code_execution", "url_context", "google_maps"]);
    expect(out).toMatchObject({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      tools: [{ type: "function", function: { name: "f" } }],
    });
    // What can never be valid still throws.
    expect(() => decodeGenerateContent({ contents: [] }, { model: "m" }, new CollectedNotes())).toThrow(
      /contents must be a non-empty array/,
    );
  });
});

describe("gemini answers", () => {
  it("encodes a whole answer: candidates, finish reasons, usage with thoughts and cache", () => {
    const call = new InboundCall(gemini, info({ route: { model: "gpt-4o-mini", stream: false } }));
    const answer = JSON.parse(fixture("openai-completion-text.json"));
    expect(JSON.parse(call.encodeWhole(answer))).toEqual(JSON.parse(fixture("gemini-response-text.json")));
    // streamGenerateContent without alt=sse: the same response, as a JSON array
    const array = new InboundCall(gemini, info({ route: { model: "gpt-4o-mini", stream: false, variant: "json-array" } }));
    expect(JSON.parse(array.encodeWhole(answer))).toEqual([JSON.parse(fixture("gemini-response-text.json"))]);
  });

  it("encodes tool calls as functionCall parts with their args and ids", () => {
    const out = gemini.fromCanonical(
      {
        id: "chatcmpl-1",
        model: "gpt-4o-mini",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                { id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
                { id: "call_b", type: "function", function: { name: "bad", arguments: "not json" } },
              ],
            },
            finish_reason: "tool_calls",
          },
        ],
        usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
      },
      info(),
    );
    expect(out).toEqual({
      candidates: [
        {
          content: {
            role: "model",
            parts: [
              { functionCall: { id: "call_a", name: "get_weather", args: { city: "Paris" } } },
              { functionCall: { id: "call_b", name: "bad", args: { arguments: "not json" } } },
            ],
          },
          finishReason: "STOP",
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 7, totalTokenCount: 12 },
      modelVersion: "gpt-4o-mini",
      responseId: "chatcmpl-1",
    });
  });

  const events = (sse: string) =>
    sse
      .split("\n\n")
      .filter(Boolean)
      .map((e) => {
        expect(e.startsWith("data: ")).toBe(true);
        return JSON.parse(e.slice(6));
      });

  it("streams tool calls whole once complete, the usage on the last event, no [DONE]", () => {
    const w = new InboundCall(gemini, info()).streamWriter();
    const relayed = fixture("openai-stream-tool-calls.sse");
    // fed in small pieces, as the network gives them
    let out = "";
    for (let i = 0; i < relayed.length; i += 37) {
      const b = w.write(Buffer.from(relayed.slice(i, i + 37)));
      if (b) out += Buffer.from(b).toString();
    }
    expect(out).not.toContain("[DONE]");
    expect(out).not.toContain("event:");
    expect(events(out)).toEqual([
      {
        candidates: [
          {
            content: {
              role: "model",
              parts: [
                { functionCall: { id: "call_Pa1", name: "get_weather", args: { city: "Paris" } } },
                { functionCall: { id: "call_Ro2", name: "get_weather", args: { city: "Rome" } } },
              ],
            },
            finishReason: "STOP",
            index: 0,
          },
        ],
        usageMetadata: { promptTokenCount: 82, candidatesTokenCount: 36, totalTokenCount: 118, cachedContentTokenCount: 64 },
        modelVersion: "gpt-4o-mini",
        responseId: "chatcmpl-tools1",
      },
    ]);
  });

  it("streams text as it comes; an error mid-stream is a final error event", () => {
    const w = new InboundCall(gemini, info()).streamWriter();
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: "c1", model: "gpt-4o-mini", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const text = (s: string) => {
      const b = w.write(Buffer.from(s));
      return b ? Buffer.from(b).toString() : "";
    };
    expect(text(chunk({ role: "assistant", content: "" }))).toBe(""); // nothing to say yet
    expect(events(text(chunk({ content: "Hel" })))).toEqual([
      { candidates: [{ content: { role: "model", parts: [{ text: "Hel" }] }, index: 0 }], modelVersion: "gpt-4o-mini", responseId: "c1" },
    ]);
    const tail = text(
      `${chunk({ content: "lo" })}data: {"error":{"message":"upstream stream timed out","type":"upstream_error","code":"stream_timeout"}}\n\ndata: [DONE]\n\n`,
    );
    expect(events(tail)).toEqual([
      { candidates: [{ content: { role: "model", parts: [{ text: "lo" }] }, index: 0 }], modelVersion: "gpt-4o-mini", responseId: "c1" },
      { error: { code: 504, message: "upstream stream timed out", status: "DEADLINE_EXCEEDED" } },
    ]);
  });

  it("ends a stream without a usage chunk with its held last event", () => {
    const enc = gemini.streamEncoder(info());
    expect(enc.chunk({ id: "c2", choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "length" }] })).toBe("");
    expect(events(enc.done())).toEqual([
      {
        candidates: [{ content: { role: "model", parts: [{ text: "ok" }] }, finishReason: "MAX_TOKENS", index: 0 }],
        modelVersion: "gpt-4o-mini",
        responseId: "c2",
      },
    ]);
  });

  it("answers errors in Google's shape", () => {
    expect(gemini.errorBody(400, "bad", "invalid_request_error", null)).toEqual({
      error: { code: 400, message: "bad", status: "INVALID_ARGUMENT" },
    });
    const names = [401, 403, 404, 429, 500, 503, 529].map(
      (s) => (gemini.errorBody(s, "m", "t", null) as { error: { status: string } }).error.status,
    );
    // 529 is a Claude channel's "overloaded" passed on: Google's busy service.
    expect(names).toEqual([
      "UNAUTHENTICATED",
      "PERMISSION_DENIED",
      "NOT_FOUND",
      "RESOURCE_EXHAUSTED",
      "INTERNAL",
      "UNAVAILABLE",
      "UNAVAILABLE",
    ]);
  });
});
