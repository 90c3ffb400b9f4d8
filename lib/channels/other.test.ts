import { describe, expect, it } from "vitest";
import { changesAddressOther, channelOtherProblem, isVertexRegion, otherMovesChannel, parseVertexRegions } from "./other";
import { channelCreateSchema, channelUpdateSchema } from "./schemas";
import { channelCreateBody, channelUpdateBody, emptyChannelForm } from "./form";

const VERTEX = 41;
const regionMessage = (r: string) => `部署地区「${r}」不合法：只能是 global，或由小写字母、数字和连字符组成（例如 us-central1）`;
const MAP_MESSAGE = '部署地区的 JSON 应为一个对象，每个值都是地区，例如 {"default": "us-central1", "模型": "地区"}';

describe("Vertex AI regions", () => {
  it("are global or lowercase letters, digits and hyphens", () => {
    for (const r of ["global", "us-central1", "europe-west4", "asia-northeast1", "me-central2"]) expect(isVertexRegion(r), r).toBe(true);
    for (const r of [
      "",
      "attacker.example/x?",
      "US-CENTRAL1",
      "us central1",
      "us_central1",
      "a.b",
      "x@y",
      "evil.example#",
      "区域",
      "us-central1\n",
    ]) {
      expect(isVertexRegion(r), r).toBe(false);
    }
  });

  it("accept one region, empty (the default), or a map of regions", () => {
    expect(parseVertexRegions("")).toEqual({ region: "" });
    expect(parseVertexRegions(" europe-west4 ")).toEqual({ region: "europe-west4" });
    expect(parseVertexRegions('{"default": "us-east5", "claude-3-5-sonnet-20240620": "europe-west1"}')).toEqual({
      regions: new Map([
        ["default", "us-east5"],
        ["claude-3-5-sonnet-20240620", "europe-west1"],
      ]),
    });
    expect(parseVertexRegions("{}")).toEqual({ regions: new Map() });
    for (const other of ["{", "[]", '["us-central1"]', '{"default": 1}', '{"default": null}', '{"m": ""}', '["x"]']) {
      expect(parseVertexRegions(other), other).toBeNull();
    }
  });

  it("are checked on save, every value of the map included, naming the value that is wrong", () => {
    expect(channelOtherProblem(VERTEX, "us-central1")).toBeNull();
    expect(channelOtherProblem(VERTEX, '{"default": "global", "gemini-1.5-pro": "asia-east1"}')).toBeNull();
    expect(channelOtherProblem(VERTEX, "attacker.example/x?")).toBe(regionMessage("attacker.example/x?"));
    expect(channelOtherProblem(VERTEX, '{"default": "us-central1", "gemini-pro": "attacker.example/x?"}')).toBe(
      regionMessage("attacker.example/x?"),
    );
    expect(channelOtherProblem(VERTEX, '{"default": "us-central1", "gemini-pro": 5}')).toBe(MAP_MESSAGE);
    expect(channelOtherProblem(VERTEX, "{not json")).toBe(MAP_MESSAGE);
  });
});

describe("other fields that become part of the URL", () => {
  it("have one shape per type; other types take any text", () => {
    expect(channelOtherProblem(39, "0123456789abcdef0123456789abcdef")).toBeNull();
    for (const bad of ["..", "acct/../../x", "a b", "a?b"])
      expect(channelOtherProblem(39, bad), bad).toBe("Account ID 只能由字母、数字、下划线和连字符组成");
    for (const good of ["v1", "v1beta", "v1alpha", "v1beta2"]) expect(channelOtherProblem(24, good), good).toBeNull();
    for (const bad of ["v1beta/../../x", "../v1", "1", "v1?key=x"]) {
      expect(channelOtherProblem(24, bad), bad).toBe("API 版本应为 v 加数字，可带小写字母，例如 v1beta、v1");
    }
    for (const good of ["2023-06-01-preview", "2024-10-21", "latest"]) expect(channelOtherProblem(3, good), good).toBeNull();
    expect(channelOtherProblem(3, "2024-10-21&x=1")).toBe("API 版本只能由字母、数字、点和连字符组成，例如 2024-10-21");
    expect(channelOtherProblem(17, "WebSearch")).toBeNull();
    expect(channelOtherProblem(1, "anything / at all")).toBeNull();
  });

  it("moves the channel when it decides the host or the account: Vertex AI and Cloudflare", () => {
    expect([41, 39, 24, 3, 18, 21, 17, 1].filter(otherMovesChannel)).toEqual([41, 39]);
    expect(changesAddressOther({ type: 41, other: "us-central1" }, { type: 41, other: "europe-west4" })).toBe(true);
    // Empty is the default region: not a change.
    expect(changesAddressOther({ type: 41, other: "" }, { type: 41, other: "us-central1" })).toBe(false);
    expect(changesAddressOther({ type: 41, other: " us-central1" }, { type: 41, other: "us-central1" })).toBe(false);
    expect(changesAddressOther({ type: 24, other: "v1" }, { type: 24, other: "v1beta" })).toBe(false);
    // A new type is a move of its own (lib/channels/address).
    expect(changesAddressOther({ type: 1, other: "" }, { type: 41, other: "europe-west4" })).toBe(false);
  });

  it("are refused by the create and update schemas (batch create included)", () => {
    const base = { name: "v", key: "sk-1", models: "m" };
    const created = channelCreateSchema.safeParse({ ...base, type: 41, other: "attacker.example/x?", key: "{}" });
    expect(created.success).toBe(false);
    expect(created.error?.issues.map((i) => i.message)).toContain(regionMessage("attacker.example/x?"));
    const batch = channelCreateSchema.safeParse({ ...base, type: 24, other: "../v1", key: "a\nb", mode: "batch" });
    expect(batch.error?.issues.map((i) => i.message)).toEqual(["API 版本应为 v 加数字，可带小写字母，例如 v1beta、v1"]);
    const updated = channelUpdateSchema.safeParse({ id: 1, type: 41, other: '{"default": "x.example/"}' });
    expect(updated.error?.issues.map((i) => i.message)).toEqual([regionMessage("x.example/")]);
    expect(channelUpdateSchema.safeParse({ id: 1, type: 41, other: "europe-west4" }).success).toBe(true);
  });
});

describe("the editor's region field", () => {
  const SA = JSON.stringify({
    project_id: "p",
    client_email: "a@p.iam.gserviceaccount.com",
    private_key: "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n",
  });
  const original = { ...emptyChannelForm(VERTEX), name: "vertex" };

  it("refuses a region that is not one, on create and on edit, with the server's text", () => {
    expect(channelCreateBody({ ...original, key: SA, other: "attacker.example/x?" })).toEqual({
      ok: false,
      message: regionMessage("attacker.example/x?"),
      field: "other",
    });
    const map = '{"default": "us-central1", "gemini-1.5-pro-001": "attacker.example/x?"}';
    expect(channelUpdateBody(7, { ...original, other: map, key: SA }, original)).toEqual({
      ok: false,
      message: regionMessage("attacker.example/x?"),
      field: "other",
    });
  });

  it("asks for the key with a new region, and sends one with it", () => {
    expect(channelUpdateBody(7, { ...original, other: "europe-west4" }, original)).toEqual({
      ok: false,
      message: "修改部署地区（Region）时请重新填写渠道密钥！",
      field: "key",
    });
    expect(channelUpdateBody(7, { ...original, other: "europe-west4", key: SA }, original)).toEqual({
      ok: true,
      body: { id: 7, other: "europe-west4", key: SA },
    });
    // Other fields need no key.
    expect(channelUpdateBody(7, { ...original, name: "renamed" }, original)).toEqual({ ok: true, body: { id: 7, name: "renamed" } });
  });
});
