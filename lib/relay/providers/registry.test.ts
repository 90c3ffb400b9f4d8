import { describe, expect, it } from "vitest";
import { CHANNEL_CATALOG, CHANNEL_TYPE_CODES, CHANNEL_TYPES, type ChannelType } from "@/lib/channels/catalog";
import { CHANNEL_REGISTRY, getProvider, notRelayedTypes, RELAYED_TYPES, relayRefusal, type RegistryEntry } from "./index";

// The compile-time half: tsc fails here if Record<ChannelType, …> stopped requiring every type.
const { [CHANNEL_TYPES.Anthropic]: _claude, ...withoutClaude } = CHANNEL_REGISTRY;
// @ts-expect-error a registry without one catalogue type does not compile
const incomplete: Record<ChannelType, RegistryEntry> = withoutClaude;

describe("channel registry", () => {
  it("has exactly one entry per catalogue type and nothing else", () => {
    const keys = Object.keys(CHANNEL_REGISTRY)
      .map(Number)
      .sort((a, b) => a - b);
    expect(keys).toEqual([...CHANNEL_TYPE_CODES].sort((a, b) => a - b));
    expect(new Set(keys).size).toBe(keys.length);
    expect(Object.keys(incomplete)).not.toContain(String(CHANNEL_TYPES.Anthropic));
  });

  it("gives every type either an adapter or a reason, never both or neither", () => {
    const refused = notRelayedTypes();
    for (const t of CHANNEL_TYPE_CODES) {
      const adapter = getProvider(t);
      const reason = refused[t];
      expect(adapter === undefined, `type ${t}`).toBe(reason !== undefined);
      if (adapter) expect(adapter).toBe(CHANNEL_REGISTRY[t]);
      else expect(reason).toMatch(/\S/);
    }
    expect(RELAYED_TYPES.length + Object.keys(refused).length).toBe(CHANNEL_TYPE_CODES.length);
  });

  it("relays the OpenAI-protocol types and refuses the others for now", () => {
    expect([...RELAYED_TYPES]).toEqual([
      1, 3, 4, 8, 11, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 31, 33, 34, 35, 37, 38, 39, 40, 41, 42, 43, 48,
    ]);
    expect(Object.keys(notRelayedTypes()).map(Number)).toEqual([2, 5, 36]);
  });

  it("explains a refusal with the catalogue's name", () => {
    expect(relayRefusal(1)).toBeNull();
    expect(relayRefusal(14)).toBeNull();
    expect(relayRefusal(33)).toBeNull();
    expect(relayRefusal(36)).toContain(CHANNEL_CATALOG[36].name);
    for (const t of [0, 7, 999, -1, 1.5, Number.NaN]) {
      expect(getProvider(t)).toBeUndefined();
      expect(relayRefusal(t)).toBe("未知的渠道类型");
    }
  });

  it("takes names and default base URLs from the catalogue only", () => {
    // An adapter builds its default URL from the catalogue's base URL.
    const r = getProvider(43)!.buildRequest({
      channel: {
        id: 1,
        type: 43,
        name: "c",
        key: "k",
        base_url: "",
        other: "",
        openai_organization: "",
        model_mapping: {},
        status_code_mapping: {},
        auto_ban: true,
      },
      mode: "chat",
      upstreamModel: "deepseek-chat",
      clientPath: "/v1/chat/completions",
      body: "{}",
      contentType: "application/json",
      stream: false,
    });
    expect((r as { url: string }).url).toBe(`${CHANNEL_CATALOG[43].baseUrl}/v1/chat/completions`);
    for (const t of RELAYED_TYPES) {
      const keys = Object.keys(getProvider(t)!).filter((k) => k !== "native");
      expect(keys.sort()).toEqual(["buildRequest", "supportedModes"]);
    }
  });
});
