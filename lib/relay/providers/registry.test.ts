import { describe, expect, it } from "vitest";
import { CHANNEL_CATALOG, CHANNEL_TYPE_CODES, CHANNEL_TYPES, type ChannelType } from "@/lib/channels/catalog";
import {
  CHANNEL_REGISTRY,
  channelTypeRefusal,
  getProvider,
  isTasksOnlyType,
  notRelayedTypes,
  RELAYED_TYPES,
  relayRefusal,
  type RegistryEntry,
} from "./index";

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

  it("gives every type exactly one of an adapter, a task platform or a reason", () => {
    const refused = notRelayedTypes();
    for (const t of CHANNEL_TYPE_CODES) {
      const adapter = getProvider(t);
      const reason = refused[t];
      expect([adapter !== undefined, isTasksOnlyType(t), reason !== undefined].filter(Boolean), `type ${t}`).toHaveLength(1);
      if (adapter) expect(adapter).toBe(CHANNEL_REGISTRY[t]);
      if (reason !== undefined) expect(reason).toMatch(/\S/);
    }
    const tasksOnly = CHANNEL_TYPE_CODES.filter(isTasksOnlyType);
    expect(RELAYED_TYPES.length + tasksOnly.length + Object.keys(refused).length).toBe(CHANNEL_TYPE_CODES.length);
  });

  it("relays the chat types; Midjourney and Suno run tasks only; no type is refused", () => {
    expect([...RELAYED_TYPES]).toEqual([
      1, 3, 4, 8, 11, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 31, 33, 34, 35, 37, 38, 39, 40, 41, 42, 43, 48,
    ]);
    expect(CHANNEL_TYPE_CODES.filter(isTasksOnlyType)).toEqual([2, 5, 36]);
    expect(notRelayedTypes()).toEqual({});
    for (const t of [2, 5, 36]) expect(channelTypeRefusal(t), `type ${t}`).toBeNull();
    expect(relayRefusal(2)).toBe("渠道类型「Midjourney Proxy」只用于Midjourney 任务接口（/mj）");
    expect(relayRefusal(36)).toBe("渠道类型「Suno API」只用于Suno 任务接口（/suno）");
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
