import { describe, expect, it } from "vitest";
import { CHANNEL_MSG } from "@/lib/channels/schemas";
import {
  addCustomModels,
  CHANNEL_FORM_MSG,
  channelCreateBody,
  channelFormOf,
  channelStatusTag,
  channelTypeFields,
  channelUpdateBody,
  emptyChannelForm,
  mergeModels,
  responseTimeTag,
  withType,
} from "@/lib/channels/form";
import type { ChannelView } from "@/lib/channels/view";

describe("channel tags", () => {
  it("labels the four status cases", () => {
    expect(channelStatusTag(1).label).toBe("已启用");
    expect(channelStatusTag(2).label).toBe("已禁用");
    expect(channelStatusTag(3).label).toBe("自动禁用");
    expect(channelStatusTag(7).label).toBe("未知状态");
  });

  it("colours response times by the spec's thresholds", () => {
    expect(responseTimeTag(0, 1)).toEqual({ label: "未测试", color: "gray" });
    expect(responseTimeTag(1000, 1)).toEqual({ label: "1.00 秒", color: "green" });
    expect(responseTimeTag(1001, 1).color).toBe("lime");
    expect(responseTimeTag(3000, 1).color).toBe("lime");
    expect(responseTimeTag(5000, 1).color).toBe("yellow");
    expect(responseTimeTag(5001, 1)).toEqual({ label: "5.00 秒", color: "red" });
  });

  it("greys the time of a channel that is not enabled (a fast failure is not a healthy green)", () => {
    expect(responseTimeTag(12, 3)).toEqual({ label: "0.01 秒", color: "gray" });
    expect(responseTimeTag(800, 2)).toEqual({ label: "0.80 秒", color: "gray" });
    expect(responseTimeTag(0, 3)).toEqual({ label: "未测试", color: "gray" });
  });
});

describe("type-specific fields", () => {
  it("gives each type's other field and default", () => {
    expect(channelTypeFields(3).other?.default).toBe("2023-06-01-preview");
    expect(channelTypeFields(3).baseUrlRequired).toBe(true);
    expect(channelTypeFields(18).other?.default).toBe("v1.1");
    expect(channelTypeFields(41).other?.default).toBe("us-central1");
    expect(channelTypeFields(39).other?.label).toBe("Account ID");
    expect(channelTypeFields(39).other?.placeholder).toContain("Cloudflare Account ID");
    expect(channelTypeFields(33).keyPlaceholder).toBe("按照如下格式输入：AccessKey|SecretAccessKey|Region");
    expect(channelTypeFields(1).other).toBeNull();
    expect(channelTypeFields(1).baseUrlRequired).toBe(false);
    expect(channelTypeFields(1).baseUrlPlaceholder).toContain("https://api.openai.com");
  });

  it("prefills models when empty or still the old type's defaults, and moves a default other to the new type's", () => {
    const openai = emptyChannelForm(1);
    expect(openai.models).toContain("gpt-4");
    expect(openai.auto_ban).toBe(true);
    // Models the admin chose are kept; the old type's untouched defaults are replaced.
    const chosen = { ...openai, models: ["gpt-4o", "my-model"] };
    expect(withType(chosen, 43).models).toEqual(["gpt-4o", "my-model"]);
    expect(withType(openai, 43).models).toEqual(["deepseek-chat", "deepseek-reasoner"]);
    const filled = withType({ ...openai, models: [] }, 43);
    expect(filled.models).toEqual(["deepseek-chat", "deepseek-reasoner"]);
    const azure = withType(openai, 3);
    expect(azure.other).toBe("2023-06-01-preview");
    expect(withType(azure, 18).other).toBe("v1.1");
    expect(withType({ ...azure, other: "2024-02-01" }, 18).other).toBe("2024-02-01");
    expect(withType(azure, 1).other).toBe("");
  });
});

describe("models", () => {
  it("adds custom models and reports duplicates", () => {
    expect(addCustomModels(["a"], "b, c ,b")).toEqual({ models: ["a", "b", "c"], duplicate: false });
    expect(addCustomModels(["a"], "a,b")).toEqual({ models: ["a", "b"], duplicate: true });
    expect(mergeModels(["a", "b"], ["b", "c"])).toEqual(["a", "b", "c"]);
  });
});

describe("bodies", () => {
  const valid = { ...emptyChannelForm(1), name: " up ", key: "sk-1", base_url: "http://x.test/v1//" };

  it("builds a create body with the server's normalisation and rules", () => {
    const r = channelCreateBody(valid);
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.body).toMatchObject({ name: "up", base_url: "http://x.test/v1", auto_ban: 1, group: "default", mode: "single" });
    }
    expect(channelCreateBody({ ...valid, batch: true }).ok && channelCreateBody({ ...valid, batch: true })).toMatchObject({
      body: { mode: "batch" },
    });
    expect(channelCreateBody({ ...valid, name: "" })).toEqual({ ok: false, field: "name", message: CHANNEL_MSG.nameKeyRequired });
    expect(channelCreateBody({ ...valid, key: "  " })).toEqual({ ok: false, field: "key", message: CHANNEL_MSG.nameKeyRequired });
    expect(channelCreateBody({ ...valid, batch: true, key: "\n \n" })).toEqual({
      ok: false,
      field: "key",
      message: CHANNEL_MSG.nameKeyRequired,
    });
    expect(channelCreateBody({ ...valid, models: [] })).toEqual({ ok: false, field: "models", message: CHANNEL_MSG.modelsRequired });
    expect(channelCreateBody({ ...valid, model_mapping: "{bad" })).toEqual({
      ok: false,
      field: "model_mapping",
      message: "模型映射必须是合法的 JSON 格式！",
    });
    expect(channelCreateBody({ ...valid, status_code_mapping: "[1]" })).toEqual({
      ok: false,
      field: "status_code_mapping",
      message: CHANNEL_MSG.statusCodeMappingInvalid,
    });
    expect(channelCreateBody({ ...valid, output_limits: '{"gpt-4o": 16384.5}' })).toEqual({
      ok: false,
      field: "output_limits",
      message: CHANNEL_MSG.outputLimitsInvalid,
    });
    expect(channelCreateBody({ ...valid, output_limits: ' {"gpt-4o": 4096, "*": 8192} ' })).toMatchObject({
      ok: true,
      body: { output_limits: '{"gpt-4o": 4096, "*": 8192}' },
    });
    expect(channelCreateBody({ ...valid, priority: -1000 })).toEqual({ ok: false, field: "priority", message: CHANNEL_MSG.priorityMin });
    expect(channelCreateBody({ ...valid, weight: -1 })).toEqual({ ok: false, field: "weight", message: CHANNEL_MSG.weightMin });
    // The schema's key-format rules carry no path: the refusal is still about the key.
    expect(channelCreateBody({ ...valid, type: 41, key: "not json" })).toEqual({
      ok: false,
      field: "key",
      message: CHANNEL_MSG.vertexKeyNotJson,
    });
  });

  it("sends only changed fields on update, and says when nothing changed", () => {
    const view = {
      id: 5,
      type: 1,
      name: "up",
      base_url: "",
      other: "",
      openai_organization: "",
      models: "gpt-4,gpt-4o",
      group: "default,vip",
      model_mapping: "",
      status_code_mapping: "",
      auto_ban: 1,
      test_model: "",
      priority: 0,
      weight: 0,
    } as unknown as ChannelView;
    const original = channelFormOf(view);
    expect(original.models).toEqual(["gpt-4", "gpt-4o"]);
    expect(original.key).toBe("");
    expect(channelUpdateBody(5, original, original)).toEqual({ ok: false, message: CHANNEL_FORM_MSG.unchanged });
    expect(channelUpdateBody(5, { ...original, weight: 3, key: " sk-new " }, original)).toEqual({
      ok: true,
      body: { id: 5, weight: 3, key: "sk-new" },
    });
    expect(channelUpdateBody(5, { ...original, auto_ban: false }, original)).toEqual({ ok: true, body: { id: 5, auto_ban: 0 } });
    expect(channelUpdateBody(5, { ...original, models: [] }, original)).toEqual({
      ok: false,
      field: "models",
      message: CHANNEL_MSG.modelsRequired,
    });
    expect(channelUpdateBody(5, { ...original, name: " " }, original)).toEqual({
      ok: false,
      field: "name",
      message: CHANNEL_MSG.nameKeyRequired,
    });
    expect(channelUpdateBody(5, { ...original, model_mapping: "nope" }, original)).toEqual({
      ok: false,
      field: "model_mapping",
      message: CHANNEL_MSG.modelMappingInvalid,
    });
  });

  it("has the spec's list texts", () => {
    expect(CHANNEL_FORM_MSG.tested("a", 1.234)).toBe("通道 a 测试成功，耗时 1.23 秒。");
    expect(CHANNEL_FORM_MSG.testFailed("主力", "无效的令牌")).toBe("通道「主力」测试失败：无效的令牌");
    expect(CHANNEL_FORM_MSG.duplicateModels).toBe("部分模型已存在");
  });
});
