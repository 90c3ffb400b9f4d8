import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { RelayError } from "../../errors";
import type { ChannelConfig } from "../../types";
import type { BuildRequestInput } from "../types";
import { readFileSync } from "node:fs";
import {
  claudeModelUrl,
  publisherOf,
  regionFor,
  targetOf,
  toVertexPredict,
  vertex,
  vertexClaudeModel,
  vertexPredictToOpenAI,
} from "./index";
import { cachedAccessToken, parseServiceAccount } from "./token";

const { privateKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
const KEY = JSON.stringify({
  type: "service_account",
  project_id: "proj-1",
  client_email: "a@proj-1.iam.gserviceaccount.com",
  private_key: privateKey,
});

const channel = (o: Partial<ChannelConfig> = {}): ChannelConfig => ({
  id: 41,
  type: 41,
  name: "v",
  key: KEY,
  base_url: "",
  other: "",
  openai_organization: "",
  model_mapping: {},
  status_code_mapping: {},
  auto_ban: true,
  ...o,
});

const input = (model: string, o: Partial<ChannelConfig> = {}, mode: BuildRequestInput["mode"] = "chat"): BuildRequestInput => {
  const json = { model, messages: [{ role: "user", content: "hi" }] };
  return {
    channel: channel(o),
    mode,
    upstreamModel: model,
    clientPath: "/v1/chat/completions",
    body: JSON.stringify(json),
    contentType: "application/json",
    stream: false,
    json,
  };
};

describe("Vertex AI channel settings", () => {
  it("reads the region: plain, a JSON map with a default, or us-central1", () => {
    expect(regionFor("", "gemini-pro", 1)).toBe("us-central1");
    expect(regionFor(" europe-west1 ", "gemini-pro", 1)).toBe("europe-west1");
    const map = JSON.stringify({ default: "asia-east1", "gemini-pro": "global" });
    expect(regionFor(map, "gemini-pro", 1)).toBe("global");
    expect(regionFor(map, "gemini-1.5-flash-001", 1)).toBe("asia-east1");
    expect(regionFor('{"gemini-pro": "global"}', "other", 1)).toBe("us-central1");
    expect(regionFor('{"default": "europe-west4"}', "constructor", 1)).toBe("europe-west4");
  });

  it("never puts a stored region that is not a region into a URL: the call is refused, no token is fetched", () => {
    for (const other of [
      "attacker.example/x?",
      "evil.example#",
      "US-CENTRAL1",
      "us central1",
      "{nope",
      '["us-central1"]',
      JSON.stringify({ default: "us-central1", "gemini-pro": "attacker.example/x?" }),
      JSON.stringify({ default: "attacker.example:443/" }),
      JSON.stringify({ default: 7 }),
    ]) {
      expect(() => regionFor(other, "gemini-pro", 9), other).toThrow(/channel #9 \(Vertex AI\): "other" must be a region/);
      let error: unknown;
      try {
        vertex.buildRequest(input("gemini-pro", { other }));
      } catch (e) {
        error = e;
      }
      expect(error, other).toMatchObject({ status: 500, code: "channel_misconfigured" });
    }
  });

  it("picks the publisher from the model name", () => {
    expect(["claude-3-5-sonnet-20240620", "meta/llama3-405b-instruct-maas", "llama-3.1-8b", "gemini-1.5-pro-001"].map(publisherOf)).toEqual(
      ["anthropic", "meta", "meta", "google"],
    );
  });

  it("builds hosts per region, global without a prefix, and the channel's base URL over both", () => {
    const sa = parseServiceAccount(KEY, 41);
    expect(targetOf(input("gemini-pro", { other: "europe-west4" }), sa)).toEqual({
      host: "https://europe-west4-aiplatform.googleapis.com",
      region: "europe-west4",
      project: "proj-1",
    });
    expect(targetOf(input("gemini-pro", { other: "global" }), sa).host).toBe("https://aiplatform.googleapis.com");
    expect(targetOf(input("gemini-pro", { base_url: "http://127.0.0.1:9/" }), sa).host).toBe("http://127.0.0.1:9");
    expect(claudeModelUrl(targetOf(input("x"), sa), "claude-3-5-sonnet@20240620", true)).toBe(
      "https://us-central1-aiplatform.googleapis.com/v1/projects/proj-1/locations/us-central1/publishers/anthropic/models/claude-3-5-sonnet@20240620:streamRawPredict",
    );
  });

  it("refuses a key that is not a service account, as the channel's fault", () => {
    for (const [key, why] of [
      ["sk-not-json", /not a service-account JSON/],
      [JSON.stringify({ project_id: "p", client_email: "e" }), /no "private_key"/],
    ] as const) {
      try {
        vertex.buildRequest(input("gemini-pro", { key }));
        throw new Error("accepted");
      } catch (e) {
        expect(e).toBeInstanceOf(RelayError);
        expect((e as RelayError).message).toMatch(why);
        expect((e as RelayError).local).toBe(false);
      }
    }
    expect(parseServiceAccount(KEY, 1).token_uri).toBe("https://oauth2.googleapis.com/token");
  });

  it("names Claude models as Vertex does", () => {
    expect(
      ["claude-3-haiku-20240307", "claude-3-5-sonnet-20241022", "claude-sonnet-4@20250514", "claude-x"].map(vertexClaudeModel),
    ).toEqual(["claude-3-haiku@20240307", "claude-3-5-sonnet-v2@20241022", "claude-sonnet-4@20250514", "claude-x"]);
  });

  it("refuses other modes, and a bad embeddings input, before fetching a token", () => {
    expect(() => vertex.buildRequest(input("imagen-3.0", {}, "images"))).toThrow(/not supported/);
    const bad = { ...input("text-embedding-004", {}, "embeddings"), json: { model: "text-embedding-004", input: [1, 2] } };
    expect(() => vertex.buildRequest(bad)).toThrow(/array of strings/);
    expect(cachedAccessToken(41, KEY)).toBeNull();
  });

  it("embeds through :predict: instances out, values and summed token counts back, floats or base64", () => {
    expect(toVertexPredict({ input: ["hello", "goodbye"], dimensions: 256 })).toEqual({
      instances: [{ content: "hello" }, { content: "goodbye" }],
      parameters: { outputDimensionality: 256 },
    });
    const recorded = JSON.parse(readFileSync(new URL("./__fixtures__/predict-embeddings.json", import.meta.url), "utf8"));
    expect(vertexPredictToOpenAI(recorded, "text-embedding-004", false)).toEqual({
      object: "list",
      data: [
        { object: "embedding", index: 0, embedding: [0.0123291, -0.0468749, 0.0289306, 0.0634765] },
        { object: "embedding", index: 1, embedding: [-0.0200195, 0.0517578, -0.0032958, 0.012207] },
      ],
      model: "text-embedding-004",
      usage: { prompt_tokens: 6, total_tokens: 6 },
    });
    const b64 = vertexPredictToOpenAI(recorded, "text-embedding-004", true) as { data: { embedding: string }[] };
    const back = Array.from(new Float32Array(Uint8Array.from(Buffer.from(b64.data[0]!.embedding, "base64")).buffer));
    expect(back).toEqual([0.0123291, -0.0468749, 0.0289306, 0.0634765].map(Math.fround));
    const error = { error: { code: 400, message: "Unable to submit request because the input is empty.", status: "INVALID_ARGUMENT" } };
    expect(vertexPredictToOpenAI(error, "text-embedding-004", false)).toMatchObject({ error: { message: error.error.message } });
  });
});
