import { describe, expect, it } from "vitest";
import { CHANNEL_MSG, channelCreateSchema, channelKeyProblem, channelKeysProblem, channelUpdateSchema } from "@/lib/channels/schemas";
import { channelCreateBody, channelTypeFields, channelUpdateBody, emptyChannelForm, withType } from "@/lib/channels/form";

const SERVICE_ACCOUNT = JSON.stringify(
  {
    type: "service_account",
    project_id: "qiao-test",
    private_key_id: "abc",
    private_key: "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n",
    client_email: "relay@qiao-test.iam.gserviceaccount.com",
  },
  null,
  2,
);

describe("composite keys (the shapes the adapters accept)", () => {
  it("takes well-formed keys of every composite type", () => {
    expect(channelKeyProblem(15, "ak|sk")).toBeNull();
    expect(channelKeyProblem(15, "24.access-token-or-v2-key")).toBeNull();
    expect(channelKeyProblem(16, "abc.def")).toBeNull();
    expect(channelKeyProblem(26, "abc.def")).toBeNull();
    expect(channelKeyProblem(18, "appid|secret|key")).toBeNull();
    expect(channelKeyProblem(23, "1250000000|AKID|secret")).toBeNull();
    expect(channelKeyProblem(23, "AKID|secret")).toBeNull();
    expect(channelKeyProblem(33, "AKIA|secret|us-east-1")).toBeNull();
    expect(channelKeyProblem(41, SERVICE_ACCOUNT)).toBeNull();
    // Single-key types take anything.
    expect(channelKeyProblem(1, "sk-a|b|c")).toBeNull();
  });

  it("names the type and its format for a key of the wrong shape", () => {
    expect(channelKeyProblem(15, "api-key|")).toBe(CHANNEL_MSG.keyFormat("百度文心千帆", "API Key|Secret Key"));
    expect(channelKeyProblem(15, "a|b|c")).toBe(CHANNEL_MSG.keyFormat("百度文心千帆", "API Key|Secret Key"));
    expect(channelKeyProblem(16, "nodot")).toBe(CHANNEL_MSG.keyFormat("智谱 ChatGLM", "id.secret"));
    expect(channelKeyProblem(26, "a.b.c")).toBe(CHANNEL_MSG.keyFormat("智谱 GLM-4V", "id.secret"));
    expect(channelKeyProblem(18, "appid|secret")).toBe(CHANNEL_MSG.keyFormat("讯飞星火认知", "APPID|APISecret|APIKey"));
    expect(channelKeyProblem(18, "appid||key")).toBe(CHANNEL_MSG.keyFormat("讯飞星火认知", "APPID|APISecret|APIKey"));
    expect(channelKeyProblem(23, "justone")).toBe(CHANNEL_MSG.keyFormat("腾讯混元", "AppId|SecretId|SecretKey"));
    expect(channelKeyProblem(33, "AKIA|secret")).toBe(CHANNEL_MSG.keyFormat("AWS Claude", "AccessKey|SecretAccessKey|Region"));
    expect(channelKeyProblem(33, "AKIA|secret|US East")).toBe(CHANNEL_MSG.keyFormat("AWS Claude", "AccessKey|SecretAccessKey|Region"));
  });

  it("wants a Vertex key to be a service-account JSON object with the fields the token needs", () => {
    expect(channelKeyProblem(41, "sk-not-json")).toBe(CHANNEL_MSG.vertexKeyNotJson);
    expect(channelKeyProblem(41, "[1, 2]")).toBe(CHANNEL_MSG.vertexKeyNotJson);
    expect(channelKeyProblem(41, '"text"')).toBe(CHANNEL_MSG.vertexKeyNotJson);
    const without = (field: string) => {
      const o = JSON.parse(SERVICE_ACCOUNT);
      delete o[field];
      return JSON.stringify(o);
    };
    expect(channelKeyProblem(41, without("client_email"))).toBe(CHANNEL_MSG.vertexKeyField("client_email"));
    expect(channelKeyProblem(41, without("private_key"))).toBe(CHANNEL_MSG.vertexKeyField("private_key"));
    expect(channelKeyProblem(41, without("project_id"))).toBe(CHANNEL_MSG.vertexKeyField("project_id"));
    expect(channelKeyProblem(41, JSON.stringify({ ...JSON.parse(SERVICE_ACCOUNT), project_id: "" }))).toBe(
      CHANNEL_MSG.vertexKeyField("project_id"),
    );
  });

  it("names the line of a bad key in batch mode and refuses batch mode for Vertex", () => {
    expect(channelKeysProblem(18, ["a|b|c", "a|b"], true)).toBe(
      CHANNEL_MSG.keyLine(2, CHANNEL_MSG.keyFormat("讯飞星火认知", "APPID|APISecret|APIKey")),
    );
    expect(channelKeysProblem(18, ["a|b|c", "d|e|f"], true)).toBeNull();
    expect(channelKeysProblem(41, [SERVICE_ACCOUNT], true)).toBe(CHANNEL_MSG.vertexNoBatch);
  });
});

describe("the server schemas check keys", () => {
  const base = { name: "n", models: "m" };

  it("on create, single and batch", () => {
    const bad = channelCreateSchema.safeParse({ ...base, type: 33, key: "AKIA|secret" });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe(CHANNEL_MSG.keyFormat("AWS Claude", "AccessKey|SecretAccessKey|Region"));
    expect(channelCreateSchema.safeParse({ ...base, type: 41, key: `\n${SERVICE_ACCOUNT}\n` }).success).toBe(true);
    const batch = channelCreateSchema.safeParse({ ...base, type: 41, key: SERVICE_ACCOUNT, mode: "batch" });
    expect(batch.error?.issues[0]?.message).toBe(CHANNEL_MSG.vertexNoBatch);
    expect(channelCreateSchema.safeParse({ ...base, type: 15, key: "a|b\nc|d", mode: "batch" }).success).toBe(true);
  });

  it("on update when the key comes with its type", () => {
    const bad = channelUpdateSchema.safeParse({ id: 1, type: 41, key: "{}" });
    expect(bad.error?.issues[0]?.message).toBe(CHANNEL_MSG.vertexKeyField("project_id"));
    // A key alone: the stored type decides (lib/channels/manage).
    expect(channelUpdateSchema.safeParse({ id: 1, key: "{}" }).success).toBe(true);
    expect(channelUpdateSchema.safeParse({ id: 1, type: 41, key: "" }).success).toBe(true);
  });
});

describe("the editor's key field", () => {
  it("hints each composite type's key from the catalogue's keyFormat", () => {
    expect(channelTypeFields(15).keyPlaceholder).toBe("按照如下格式输入：API Key|Secret Key");
    expect(channelTypeFields(18).keyHint).toContain("APPID、APISecret、APIKey");
    expect(channelTypeFields(33).keyHint).toContain("us-east-1");
    expect(channelTypeFields(41).keyPlaceholder).toContain('"client_email"');
    expect(channelTypeFields(41).keyIsJson).toBe(true);
    expect(channelTypeFields(1).keyHint).toBeNull();
    // Bedrock's and Vertex's addresses are built from the region: no base URL needed.
    expect(channelTypeFields(33).baseUrlRequired).toBe(false);
    expect(channelTypeFields(41).baseUrlPlaceholder).toContain("aiplatform.googleapis.com");
    expect(channelTypeFields(1).batchRefusal).toBeNull();
    expect(channelTypeFields(41).batchRefusal).toBe(CHANNEL_MSG.vertexNoBatch);
  });

  it("turns batch mode off when the type changes to Vertex, and checks the key before sending", () => {
    const batch = { ...emptyChannelForm(1), batch: true, name: "v", key: SERVICE_ACCOUNT };
    const vertex = withType(batch, 41);
    expect(vertex.batch).toBe(false);
    expect(withType(batch, 15).batch).toBe(true);
    expect(channelCreateBody(vertex)).toMatchObject({ ok: true, body: { type: 41, mode: "single", other: "us-central1" } });
    expect(channelCreateBody({ ...vertex, key: "not json" })).toEqual({ ok: false, message: CHANNEL_MSG.vertexKeyNotJson, field: "key" });
    expect(channelCreateBody({ ...vertex, batch: true })).toEqual({ ok: false, message: CHANNEL_MSG.vertexNoBatch, field: "batch" });
  });

  it("checks a new key on edit against the channel's type", () => {
    const original = { ...emptyChannelForm(18), name: "spark" };
    expect(channelUpdateBody(7, { ...original, key: "a|b" }, original)).toEqual({
      ok: false,
      message: CHANNEL_MSG.keyFormat("讯飞星火认知", "APPID|APISecret|APIKey"),
      field: "key",
    });
    expect(channelUpdateBody(7, { ...original, key: "a|b|c" }, original)).toEqual({ ok: true, body: { id: 7, key: "a|b|c" } });
  });
});
