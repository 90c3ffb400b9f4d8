import { describe, expect, it } from "vitest";
import { RelayError } from "../errors";
import { patchJsonBody } from "./json-body";
import { checkRequestBody, requestModel } from "./request-rules";
import {
  bodyFromMembers,
  parseJsonRequest,
  relayErrorOf,
  reservePromptTokens,
  summariseJsonBody,
  type BodySummaryResult,
  type JsonBodySummary,
} from "./request-body";
import { countJsonPromptTokens, countPromptPlan } from "../openai/token-count";
import type { RelayMode } from "../types";

const enc = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v));
const big = "a".repeat(300_000);

function summary(r: BodySummaryResult): JsonBodySummary {
  if (!r.ok) throw new Error(`refused: ${r.error.message}`);
  return r.summary;
}

describe("reading a JSON request body in one go (what the body thread does)", () => {
  it("gives what the event loop would have found: the model, the reservation's estimate, the count, the body", () => {
    const bodies: [RelayMode, Record<string, unknown>][] = [
      ["chat", { model: "gpt-4o", messages: [{ role: "user", content: big }], temperature: 0, max_tokens: 16, seed: 1 }],
      ["embeddings", { model: "text-embedding-3-small", input: [big, "x"] }],
      ["speech", { model: "tts-1", input: "你好, world", voice: "alloy" }],
      [
        "chat",
        { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], stream: true, stream_options: { include_usage: true } },
      ],
    ];
    for (const [mode, body] of bodies) {
      const bytes = enc(body);
      const s = summary(summariseJsonBody(bytes, mode, ""));
      const json = parseJsonRequest(bytes);
      expect(s.model).toBe(requestModel(json, ""));
      expect(s.rulesError).toBeNull();
      expect(s.reserveTokens).toBe(reservePromptTokens(mode, json, bytes, s.model));
      expect(countPromptPlan(structuredClone(s.prompt), s.model)).toBe(countJsonPromptTokens(mode, json, s.model));
      const back = bodyFromMembers(structuredClone(s.members), bytes);
      expect(Object.keys(back)).toEqual(Object.keys(json));
      expect(back).toEqual(json);
    }
  });

  it("sends large members as offsets into the body, parsed only when something reads them", () => {
    const bytes = enc({ model: "gpt-4o", messages: [{ role: "user", content: big }], user: "u1" });
    const s = summary(summariseJsonBody(bytes, "chat", ""));
    expect(s.members.map((m) => ("value" in m ? m.key : `${m.key}@`))).toEqual(["model", "messages@", "user"]);
    // What crosses to the event loop is small, however large the body.
    expect(JSON.stringify(s.members).length).toBeLessThan(200);
    const body = bodyFromMembers(s.members, bytes);
    expect(Object.getOwnPropertyDescriptor(body, "messages")?.get).toBeTypeOf("function");
    expect(Object.hasOwn(body, "messages")).toBe(true);
    expect(body.model).toBe("gpt-4o");
    expect((body.messages as { content: string }[])[0]!.content).toBe(big);
    // Parsed once, then a plain value.
    expect(Object.getOwnPropertyDescriptor(body, "messages")?.value).toBe(body.messages);
  });

  it("keeps JSON.parse's reading of repeated keys, __proto__ and a byte order mark", () => {
    const text = `{"model":"m","prompt":"p","a":1,"big":${JSON.stringify(big)},"a":2,"big":"small","late":"x","late":${JSON.stringify(big)},"__proto__":{"x":1}}`;
    const bytes = enc(text);
    const s = summary(summariseJsonBody(bytes, "completions", ""));
    const body = bodyFromMembers(s.members, bytes);
    const parsed = JSON.parse(text);
    expect(Object.keys(body)).toEqual(Object.keys(parsed));
    expect(body).toEqual(parsed);
    expect(body.a).toBe(2);
    expect(body.big).toBe("small");
    expect(body.late).toBe(big);
    expect(Object.hasOwn(body, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), enc({ model: "m", prompt: big })]);
    const b = summary(summariseJsonBody(bom, "completions", ""));
    expect(bodyFromMembers(b.members, bom)).toEqual({ model: "m", prompt: big });
  });

  it("answers the 400s of parsing and of the model as the event loop does, and the rules' 400 for after authentication", () => {
    const refusal = (body: string | object, mode: RelayMode = "chat", fallback = "") => {
      const r = summariseJsonBody(enc(body), mode, fallback);
      return r.ok ? null : r.error;
    };
    expect(refusal(`{"model":"m","messages":[`)).toMatchObject({ status: 400, message: "请求体不是合法的 JSON", code: "invalid_json" });
    expect(refusal([1, 2])).toMatchObject({ status: 400, message: "请求体必须是 JSON 对象", code: "invalid_json" });
    expect(refusal("null")).toMatchObject({ status: 400, message: "请求体必须是 JSON 对象" });
    expect(refusal({ messages: [] })).toMatchObject({ status: 400, code: "model_required", param: "model" });
    expect(refusal({ model: 5, messages: [] })).toMatchObject({ status: 400, code: "invalid_request", param: "model" });
    expect(refusal({ input: big }, "moderations", "text-moderation-latest")).toBeNull();

    const s = summary(summariseJsonBody(enc({ model: "gpt-4o", messages: big }), "chat", ""));
    expect(s.rulesError).toMatchObject({ status: 400, param: "messages", type: "invalid_request_error" });
    let expected: RelayError | null = null;
    try {
      checkRequestBody("chat", { messages: big });
    } catch (e) {
      expected = e as RelayError;
    }
    const thrown = relayErrorOf(s.rulesError!);
    expect(thrown).toBeInstanceOf(RelayError);
    expect({ ...thrown, message: thrown.message }).toEqual({ ...expected!, message: expected!.message });
    // A refused body is neither estimated nor walked for the count.
    expect(s.reserveTokens).toBe(0);
    expect(s.prompt).toEqual({ fixed: 0, texts: [] });
  });

  it("hands over a body of thousands of members with only the named ones listed, and finds any other when asked", () => {
    const wide: Record<string, unknown> = { model: "gpt-4o", messages: [{ role: "user", content: "hi" }] };
    for (let i = 0; i < 5000; i++) wide[`k${i}`] = i % 7 === 0 ? { nested: [i] } : i;
    wide.temperature = 0;
    const text = `${JSON.stringify(wide).slice(0, -1)},"k3":"again","big":${JSON.stringify(big)}}`;
    const bytes = enc(text);
    const s = summary(summariseJsonBody(bytes, "chat", ""));
    expect(s.members.map((m) => m.key)).toEqual(["model", "messages", "temperature"]);
    expect(s.unlisted).toBeDefined();
    const body = bodyFromMembers(structuredClone(s.members), bytes, structuredClone(s.unlisted));
    // The named members are plain; nothing else was parsed to read them.
    expect(body.model).toBe("gpt-4o");
    expect(body.temperature).toBe(0);
    expect(Object.hasOwn(body, "stream_options")).toBe(false);
    expect("stream" in body).toBe(false);
    // Any other member by name, with JSON.parse's value for a repeated key.
    expect(body.k14).toEqual({ nested: [14] });
    expect(Object.hasOwn(body, "k4999")).toBe(true);
    expect("k5000" in body).toBe(false);
    expect(body.k3).toBe("again");
    expect(body.big).toBe(big);
    const parsed = JSON.parse(text);
    expect(new Set(Object.keys(body))).toEqual(new Set(Object.keys(parsed)));
    expect({ ...body }).toEqual(parsed);
    // Edits read it like the parsed body: a member it has is replaced in place, never appended twice.
    const fresh = bodyFromMembers(s.members, bytes, s.unlisted);
    const edits = { model: "gpt-4o-mini", k7: 8, stream_options: { include_usage: true } };
    const patched = Buffer.from(patchJsonBody(bytes, edits, { parsed: fresh }).body).toString();
    expect(JSON.parse(patched)).toEqual({ ...parsed, ...edits });
    expect(patched.split('"k7":').length).toBe(2);
  });
});
