import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, nestsTooDeep, textNestsTooDeep } from "./json-depth";

const enc = new TextEncoder();
const nested = (n: number) => `{"a":${"[".repeat(n - 1)}1${"]".repeat(n - 1)}}`;

describe("nestsTooDeep", () => {
  it("allows MAX_JSON_DEPTH levels and refuses one more, in bytes and in strings", () => {
    expect(nestsTooDeep(enc.encode(nested(MAX_JSON_DEPTH)))).toBe(false);
    expect(nestsTooDeep(enc.encode(nested(MAX_JSON_DEPTH + 1)))).toBe(true);
    expect(textNestsTooDeep(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(textNestsTooDeep(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestsTooDeep(enc.encode("[".repeat(20_000)))).toBe(true);
  });

  it("does not count brackets inside strings, escaped quotes included", () => {
    const text = JSON.stringify({ a: "[".repeat(1000), b: `\\"${"{".repeat(1000)}`, c: [[1]] });
    expect(nestsTooDeep(enc.encode(text))).toBe(false);
    expect(textNestsTooDeep(text)).toBe(false);
    expect(nestsTooDeep(enc.encode(`{"a":"\\"",${"[".repeat(200)}`))).toBe(true);
  });
});
