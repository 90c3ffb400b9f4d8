import { describe, expect, it } from "vitest";
import { joinChannelKeys, maskKey, splitChannelKeys } from "@/lib/channels/keys";
import { channelKeyHash } from "@/lib/channels/key-hash";

const VERTEX = 41;
const sa = (n: number) => ({
  type: "service_account",
  project_id: `p${n}`,
  client_email: `sa${n}@p${n}.iam.gserviceaccount.com`,
  private_key: "k",
});

describe("splitChannelKeys", () => {
  it("mode '' keeps the key field as one key, exactly (composite keys and Vertex JSON untouched)", () => {
    expect(splitChannelKeys(1, "sk-a\nsk-b", "")).toEqual(["sk-a\nsk-b"]);
    expect(splitChannelKeys(33, "AK|SK|us-east-1", "")).toEqual(["AK|SK|us-east-1"]);
    const json = JSON.stringify(sa(1), null, 2);
    expect(splitChannelKeys(VERTEX, json, "")).toEqual([json]);
    expect(splitChannelKeys(1, "sk-a", "bogus")).toEqual(["sk-a"]);
  });

  it("random and polling: one key per non-blank line, trimmed, repeats dropped, in order", () => {
    for (const mode of ["random", "polling"]) {
      expect(splitChannelKeys(1, " sk-b \r\n\n sk-a\nsk-b\n  \n", mode)).toEqual(["sk-b", "sk-a"]);
      expect(splitChannelKeys(33, "AK1|SK1|us-east-1\nAK2|SK2|eu-west-1", mode)).toEqual(["AK1|SK1|us-east-1", "AK2|SK2|eu-west-1"]);
    }
  });

  it("Vertex: a JSON array of credentials, or one JSON object per line", () => {
    const array = JSON.stringify([sa(1), sa(2), sa(1)], null, 2);
    expect(splitChannelKeys(VERTEX, array, "random").map((k) => JSON.parse(k).project_id)).toEqual(["p1", "p2"]);
    const lines = `${JSON.stringify(sa(1))}\n${JSON.stringify(sa(2))}`;
    expect(splitChannelKeys(VERTEX, lines, "polling")).toEqual([JSON.stringify(sa(1)), JSON.stringify(sa(2))]);
  });

  it("joinChannelKeys writes what splitChannelKeys reads back", () => {
    const keys = [JSON.stringify(sa(1)), JSON.stringify(sa(2))];
    expect(splitChannelKeys(VERTEX, joinChannelKeys(VERTEX, keys), "random")).toEqual(keys);
    expect(splitChannelKeys(1, joinChannelKeys(1, ["a1", "b2"]), "random")).toEqual(["a1", "b2"]);
  });
});

describe("channelKeyHash and maskKey", () => {
  it("hashes with SHA-256, hex", () => {
    expect(channelKeyHash("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("never shows a whole key", () => {
    expect(maskKey("sk-proj-abcdefghijklmnop1234")).toBe("sk-pro…234");
    expect(maskKey("sk-proj-abcdefghijklmnopqrstuvwxyz1234")).toBe("sk-pro…1234");
    expect(maskKey("abcdefghijkl")).toBe("abc…l");
    expect(maskKey("short-key")).toBe("****（9 个字符）");
    expect(maskKey(JSON.stringify(sa(3)))).toBe("sa3@p3.iam.gserviceaccount.com (JSON)");
    expect(maskKey("{not json but long enough")).toBe("{not j…ugh");
  });
});
