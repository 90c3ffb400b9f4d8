// one-api channel rows → the Qiao channel that calls the same upstream (lib/import-new-api/one-api-channels.ts).
import { describe, expect, it } from "vitest";
import { fromOneApiChannel, ONE_API_MSG } from "./one-api-channels";

const row = (type: number, extra: Partial<Parameters<typeof fromOneApiChannel>[0]> = {}) =>
  fromOneApiChannel({ type, key: "k", base_url: "", other: "", config: "", ...extra });

describe("one-api channels", () => {
  it("renumbers the vendors one-api numbers differently", () => {
    expect([27, 28, 30, 35, 36, 44, 45].map((t) => row(t).type)).toEqual([35, 42, 4, 34, 43, 40, 48]);
    expect([1, 3, 14, 15, 16, 18, 23, 24, 25, 31].map((t) => row(t).type)).toEqual([1, 3, 14, 15, 16, 18, 23, 24, 25, 31]);
  });

  it("makes an OpenAI-protocol vendor an OpenAI channel on its base, one-api's default when empty", () => {
    expect(row(20)).toMatchObject({ type: 1, base_url: "https://openrouter.ai/api" });
    expect(row(2, { base_url: "https://proxy.example/" })).toMatchObject({ type: 1, base_url: "https://proxy.example" });
    expect(row(8, { base_url: "https://mine.example" })).toMatchObject({ type: 1, base_url: "https://mine.example" });
    expect(row(50, { base_url: "https://compat.example/v1/" })).toMatchObject({ type: 1, base_url: "https://compat.example" });
  });

  it("makes a vendor with other chat paths a custom channel on its full chat URL, and says so", () => {
    expect(row(41)).toEqual({
      type: 8,
      key: "k",
      base_url: "https://api.novita.ai/v3/openai/chat/completions",
      other: "",
      note: ONE_API_MSG.chatOnly("https://api.novita.ai/v3/openai/chat/completions"),
    });
    expect(row(47, { base_url: "https://qianfan.example" }).base_url).toBe("https://qianfan.example/v2/chat/completions");
  });

  it("takes the settings from config, else from the older other", () => {
    expect(row(3, { config: '{"api_version":"2024-10-21"}', other: "2023-05-15" }).other).toBe("2024-10-21");
    expect(row(3, { other: "2023-05-15" }).other).toBe("2023-05-15");
    expect(row(18, { config: '{"api_version":"v3.5"}' }).other).toBe("v3.5");
    expect(row(21, { config: '{"library_id":"lib-1"}' }).other).toBe("lib-1");
    expect(row(17, { other: "web_search" }).other).toBe("web_search");
    expect(row(49)).toMatchObject({ type: 17, other: "" });
    expect(row(24, { config: "not json", other: "v1" }).other).toBe("v1");
  });

  it("serves Gemini's OpenAI-compatible channels as Gemini channels", () => {
    expect(row(51, { base_url: "https://generativelanguage.googleapis.com/v1beta/openai/" })).toMatchObject({
      type: 24,
      base_url: "https://generativelanguage.googleapis.com",
      other: "",
    });
  });

  it("keeps AWS and Vertex credentials the way Qiao's key holds them", () => {
    expect(row(33, { key: "", config: '{"ak":"A","sk":"S","region":"us-west-2"}' }).key).toBe("A|S|us-west-2");
    expect(row(33, { key: "A|S|eu-west-1" }).key).toBe("A|S|eu-west-1");
    expect(row(42, { config: '{"vertex_ai_adc":"{}","region":"asia-east1"}' })).toMatchObject({ type: 41, key: "{}", other: "asia-east1" });
  });

  it("brings a vendor Qiao lacks in as type 0, named", () => {
    expect(row(38)).toMatchObject({ type: 0, unsupported: true, note: "one-api 渠道类型 38（DeepL）不受支持，导入后为禁用状态" });
    expect(row(77).note).toBe("one-api 渠道类型 77 不受支持，导入后为禁用状态");
  });
});
