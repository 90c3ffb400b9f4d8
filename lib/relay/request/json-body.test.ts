import { describe, expect, it } from "vitest";
import { DELETE, KEEP, parseJsonObject, patchJsonBody, type JsonBodyView } from "./json-body";

const text = (b: string | Uint8Array) => (typeof b === "string" ? b : new TextDecoder().decode(b));

describe("patchJsonBody", () => {
  it("returns the same reference when nothing changes", () => {
    const raw = '{"model":"gpt-4o","messages":[]}';
    const r = patchJsonBody(raw, { model: "gpt-4o" });
    expect(r.changed).toBe(false);
    expect(r.body).toBe(raw);
    const bytes = new TextEncoder().encode(raw);
    const r2 = patchJsonBody(bytes, { stream_options: DELETE });
    expect(r2.body).toBe(bytes);
  });

  it("replaces the model in place and leaves every other byte alone", () => {
    const raw =
      '{ "model" : "gpt-4o", "temperature": 0, "top_k": 40, "seed": 12345678901234567890, "x": 1.0,\n' +
      '  "response_format": {"type":"json_schema","json_schema":{"name":"a","schema":{"type":"object"},"strict":true}},\n' +
      '  "thinking": {"type":"enabled","budget_tokens":1024}, "user": null }';
    const r = patchJsonBody(raw, { model: "gpt-4o-2024-11-20" });
    expect(r.changed).toBe(true);
    expect(text(r.body)).toBe(raw.replace('"gpt-4o"', '"gpt-4o-2024-11-20"'));
  });

  it("appends a missing member and merges into an existing object member", () => {
    const forceUsage = (cur: unknown) =>
      cur && typeof cur === "object" && (cur as { include_usage?: unknown }).include_usage === true
        ? KEEP
        : { ...(cur && typeof cur === "object" ? cur : {}), include_usage: true };
    const a = patchJsonBody('{"model":"m","stream":true}', { stream_options: forceUsage });
    expect(text(a.body)).toBe('{"model":"m","stream":true,"stream_options":{"include_usage":true}}');
    const b = patchJsonBody('{"stream":true,"stream_options":{"include_obfuscation":false},"n":2}', { stream_options: forceUsage });
    expect(text(b.body)).toBe('{"stream":true,"stream_options":{"include_obfuscation":false,"include_usage":true},"n":2}');
    const c = patchJsonBody('{"stream_options":{"include_usage":true}}', { stream_options: forceUsage });
    expect(c.changed).toBe(false);
    const empty = patchJsonBody("{ }", { model: "x" });
    expect(text(empty.body)).toBe('{ "model":"x"}');
  });

  it("deletes members, including adjacent and last ones, and stays valid JSON", () => {
    const raw = '{"a":1, "b":[1,{"c":"}"}], "c":"x\\"y", "d":true}';
    for (const del of [["a"], ["b"], ["d"], ["b", "c"], ["c", "d"], ["a", "b", "c", "d"], ["a", "d"]]) {
      const edits = Object.fromEntries(del.map((k) => [k, DELETE]));
      const out = text(patchJsonBody(raw, edits).body);
      const expected = JSON.parse(raw) as Record<string, unknown>;
      for (const k of del) delete expected[k];
      expect(JSON.parse(out)).toEqual(expected);
    }
    const renamed = patchJsonBody('{"model":"o1","max_tokens":100,"stream":false}', {
      max_tokens: DELETE,
      max_completion_tokens: (_c: unknown, present: boolean, body: JsonBodyView) => (present ? KEEP : body.get("max_tokens")),
    });
    expect(text(renamed.body)).toBe('{"model":"o1","stream":false,"max_completion_tokens":100}');
  });

  it("handles escapes, unicode and nested braces inside strings", () => {
    const raw = '{"messages":[{"role":"user","content":"say \\"}\\" and {[ 你好 \\\\"}],"model":"a\\u0062"}';
    const r = patchJsonBody(raw, { model: "ab" });
    // "a\u0062" is "ab" but spelt differently: rewriting it is allowed, and the rest survives.
    const parsed = JSON.parse(text(r.body)) as { model: string; messages: unknown };
    expect(parsed.model).toBe("ab");
    expect(parsed.messages).toEqual((JSON.parse(raw) as { messages: unknown }).messages);
    const k = patchJsonBody('{"mo\\u0064el":"x"}', { model: "y" });
    expect(JSON.parse(text(k.body))).toEqual({ model: "y" });
  });

  it("falls back to parse + stringify on duplicate keys (last one wins, like JSON.parse)", () => {
    const r = patchJsonBody('{"model":"a","x":1,"model":"b"}', { model: "c" });
    expect(text(r.body)).toBe('{"model":"c","x":1}');
  });

  it("rejects bodies that are not JSON objects with a 400", () => {
    expect(() => patchJsonBody("[1,2]", { model: "x" })).toThrow(/not valid JSON/);
    expect(() => patchJsonBody('{"model":', { model: "x" })).toThrow(/not valid JSON/);
    expect(() => patchJsonBody('{"a":1} x', { model: "x" })).toThrow(/not valid JSON/);
    expect(() => parseJsonObject("nope")).toThrow(/not valid JSON/);
  });

  it("with the parsed body: no-ops skip the scan, absent members are appended, and results match the scan path", () => {
    const raw = '{"model":"gpt-4o","stream":true,"n":1 }\n';
    const parsed = JSON.parse(raw) as Record<string, unknown>;
    expect(patchJsonBody(raw, { model: "gpt-4o", stream_options: DELETE }, { parsed }).body).toBe(raw);
    expect(text(patchJsonBody(raw, { stream_options: { include_usage: true } }, { parsed }).body)).toBe(
      '{"model":"gpt-4o","stream":true,"n":1,"stream_options":{"include_usage":true} }\n',
    );
    expect(text(patchJsonBody("{}", { a: 1 }, { parsed: {} }).body)).toBe('{"a":1}');
    expect(text(patchJsonBody(" { \n } ", { a: 1 }, { parsed: {} }).body)).toBe(' {"a":1 \n } ');
    expect(text(patchJsonBody('{"b":{}}', { a: 1 }, { parsed: { b: {} } }).body)).toBe('{"b":{},"a":1}');
    const editSets: Array<Record<string, unknown>> = [
      { model: "x" },
      { model: "gpt-4o", extra: [1, 2] },
      { n: DELETE, stream_options: { include_usage: true } },
      { stream: (c: unknown) => (c === true ? KEEP : true) },
      { n: (c: unknown) => (typeof c === "number" ? c + 1 : KEEP), model: DELETE },
    ];
    for (const edits of editSets) {
      const a = JSON.parse(text(patchJsonBody(raw, edits).body));
      const b = JSON.parse(text(patchJsonBody(raw, edits, { parsed }).body));
      expect(b).toEqual(a);
    }
  });

  it("keeps a large base64 image body intact while editing", () => {
    const big = "A".repeat(2_000_000);
    const raw = `{"model":"gpt-4o","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,${big}"}}]}],"stream":true}`;
    const r = patchJsonBody(new TextEncoder().encode(raw), { model: "gpt-4o-mini", stream_options: { include_usage: true } });
    const out = text(r.body);
    expect(out.length).toBe(raw.length + 5 + ',"stream_options":{"include_usage":true}'.length);
    expect(out.endsWith('"stream":true,"stream_options":{"include_usage":true}}')).toBe(true);
  });
});
