import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  crossKeyError,
  defaultOptionValues,
  defaultRaw,
  formError,
  INVALID_JSON_MESSAGE,
  isSecretOption,
  OPTION_KEYS,
  OPTION_REGISTRY,
  OPTION_SECTIONS,
  parseOption,
  readStoredOption,
  sectionFields,
  type OptionValues,
} from "@/lib/options/registry";

const accepted = (key: string, raw: string) => {
  const r = parseOption(key, raw);
  if (!r.ok) throw new Error(`${key}=${raw} refused: ${r.message}`);
  return r;
};
const refusal = (key: string, raw: string) => {
  const r = parseOption(key, raw);
  if (r.ok) throw new Error(`${key}=${raw} accepted`);
  return r.message;
};

describe("option keys", () => {
  it("covers every key of spec §9 and of the inventory §5.8", () => {
    const expected = [
      // spec §9
      "QuotaForNewUser",
      "QuotaForInviter",
      "QuotaForInvitee",
      "PreConsumedQuota",
      "QuotaRemindThreshold",
      "QuotaPerUnit",
      "RetryTimes",
      "ChannelDisableThreshold",
      "AutomaticDisableChannelEnabled",
      "AutomaticEnableChannelEnabled",
      "LogConsumeEnabled",
      "DisplayInCurrencyEnabled",
      "DisplayTokenStatEnabled",
      "DefaultCollapseSidebar",
      "CheckSensitiveEnabled",
      "CheckSensitiveOnPromptEnabled",
      "SensitiveWords",
      "MjNotifyEnabled",
      "MjAccountFilterEnabled",
      "MjModeClearEnabled",
      "MjForwardUrlEnabled",
      "MjActionCheckSuccessEnabled",
      "DrawingEnabled",
      "DataExportEnabled",
      "DataExportInterval",
      "DataExportDefaultTime",
      "ModelPrice",
      "ModelRatio",
      "CompletionRatio",
      "GroupRatio",
      "UserUsableGroups",
      "TopupGroupRatio",
      "Chats",
      "TopUpLink",
      "ChatLink",
      "ChatLink2",
      "Notice",
      "About",
      "HomePageContent",
      "Footer",
      "Logo",
      "SystemName",
      // inventory §5.8
      "FileUploadPermission",
      "FileDownloadPermission",
      "ImageUploadPermission",
      "ImageDownloadPermission",
      "PasswordLoginEnabled",
      "PasswordRegisterEnabled",
      "EmailVerificationEnabled",
      "GitHubOAuthEnabled",
      "LinuxDOOAuthEnabled",
      "TelegramOAuthEnabled",
      "WeChatAuthEnabled",
      "TurnstileCheckEnabled",
      "RegisterEnabled",
      "EmailDomainRestrictionEnabled",
      "EmailAliasRestrictionEnabled",
      "EmailDomainWhitelist",
      "SMTPServer",
      "SMTPPort",
      "SMTPAccount",
      "SMTPFrom",
      "SMTPToken",
      "SMTPSSLEnabled",
      "ServerAddress",
      "WorkerUrl",
      "WorkerValidKey",
      "PayAddress",
      "CustomCallbackAddress",
      "EpayId",
      "EpayKey",
      "Price",
      "MinTopUp",
      "GitHubClientId",
      "GitHubClientSecret",
      "LinuxDOClientId",
      "LinuxDOClientSecret",
      "TelegramBotToken",
      "TelegramBotName",
      "WeChatServerAddress",
      "WeChatServerToken",
      "WeChatAccountQRCodeImageURL",
      "TurnstileSiteKey",
      "TurnstileSecretKey",
      "StopOnSensitiveEnabled",
      "StreamCacheQueueLength",
      "SelfUseModeEnabled",
      "CacheRatio",
      "TaskEnabled",
    ];
    const missing = expected.filter((k) => !OPTION_KEYS.includes(k as never));
    expect(missing).toEqual([]);
  });

  it("refuses unknown keys", () => {
    expect(refusal("NoSuchOption", "1")).toBe("未知的配置项：NoSuchOption");
    expect(refusal("__proto__", "1")).toBe("未知的配置项：__proto__");
  });

  it("marks as secret exactly the keys ending in Token, Secret or Key (or new-api's dotted `secret`), except the public TurnstileSiteKey", () => {
    const secrets = OPTION_KEYS.filter(isSecretOption).sort();
    expect(secrets).toEqual(
      [
        "EpayKey",
        "GitHubClientSecret",
        "LinuxDOClientSecret",
        "MetricsToken",
        "SMTPToken",
        "StripeApiSecret",
        "StripeWebhookSecret",
        "TelegramBotToken",
        "TurnstileSecretKey",
        "WeChatServerToken",
        "WorkerValidKey",
        "oidc.client_secret",
      ].sort(),
    );
    for (const key of OPTION_KEYS) {
      if (key === "TurnstileSiteKey") continue;
      expect(isSecretOption(key), key).toBe(/(Token|Secret|Key|secret)$/.test(key));
    }
    expect(isSecretOption("TurnstileSiteKey")).toBe(false);
  });
});

describe("defaults", () => {
  it("each default is a value its own rules accept, and round-trips through its stored string", () => {
    for (const key of OPTION_KEYS) {
      const raw = defaultRaw(key);
      const r = accepted(key, raw);
      expect(r.value, key).toEqual(OPTION_REGISTRY[key].default);
    }
  });

  it("match new-api's constants", () => {
    const { values } = defaultOptionValues();
    expect(values.QuotaPerUnit).toBe(500_000);
    expect(values.PreConsumedQuota).toBe(500);
    expect(values.QuotaRemindThreshold).toBe(1000);
    expect(values.ChannelDisableThreshold).toBe(5);
    expect(values.RetryTimes).toBe(0);
    expect(values.Price).toBe(7.3);
    expect(values.MinTopUp).toBe(1);
    expect(values.SMTPPort).toBe(587);
    expect(values.DataExportInterval).toBe(5);
    expect(values.DataExportDefaultTime).toBe("hour");
    expect(values.Logo).toBe("/logo.png");
    expect(values.GroupRatio).toEqual({ default: 1, vip: 1, svip: 1 });
    expect(values.TopupGroupRatio).toEqual({ default: 1, vip: 1, svip: 1 });
    expect(values.UserUsableGroups).toEqual({ default: "默认分组", vip: "vip分组" });
    expect(values.MjForwardUrlEnabled).toBe(true);
    expect(values.MjActionCheckSuccessEnabled).toBe(true);
    expect(values.MjNotifyEnabled).toBe(false);
    expect(values.StopOnSensitiveEnabled).toBe(true);
    expect(values.SensitiveWords).toBe("test_sensitive");
    expect(values.EmailDomainWhitelist.split(",")).toContain("gmail.com");
    expect(values.Chats.length).toBe(4);
  });
});

describe("booleans", () => {
  it('accept exactly "true" and "false"', () => {
    expect(accepted("DrawingEnabled", "true").value).toBe(true);
    expect(accepted("DrawingEnabled", "false").value).toBe(false);
    for (const bad of ["1", "0", "yes", "TRUE", "", "null"]) {
      expect(refusal("DrawingEnabled", bad)).toBe("DrawingEnabled 的值只能是 true 或 false");
    }
  });
});

describe("integers", () => {
  it("accept integers and refuse everything else", () => {
    expect(accepted("RetryTimes", " 3 ").value).toBe(3);
    expect(accepted("QuotaForNewUser", "500000").raw).toBe("500000");
    for (const bad of ["1.5", "abc", "", "1e3", "0x10", "99999999999999999999"]) {
      expect(refusal("RetryTimes", bad)).toBe("RetryTimes 的值必须是整数");
    }
  });

  it("enforce minimums and maximums", () => {
    expect(refusal("DataExportInterval", "0")).toBe("DataExportInterval 的值不能小于 1");
    expect(accepted("DataExportInterval", "1").value).toBe(1);
    expect(refusal("MinTopUp", "0")).toBe("MinTopUp 的值不能小于 1");
    expect(refusal("QuotaForNewUser", "-1")).toBe("QuotaForNewUser 的值不能小于 0");
    expect(refusal("SMTPPort", "70000")).toBe("SMTPPort 的值不能大于 65535");
  });
});

describe("ModelRequestRateLimitGroup", () => {
  it("takes {group: [requests ≥ 0, successes ≥ 1]} and refuses anything else, saying where", () => {
    expect(accepted("ModelRequestRateLimitGroup", '{"default": [200, 100], "vip": [0, 1000]}').value).toEqual({
      default: [200, 100],
      vip: [0, 1000],
    });
    expect(refusal("ModelRequestRateLimitGroup", '{"vip": [1, 0]}')).toBe("ModelRequestRateLimitGroup 格式错误：vip.1：成功次数不能小于 1");
    expect(refusal("ModelRequestRateLimitGroup", '{"vip": [-1, 1]}')).toBe(
      "ModelRequestRateLimitGroup 格式错误：vip.0：请求次数不能小于 0",
    );
    expect(refusal("ModelRequestRateLimitGroup", '{"vip": [1.5, 1]}')).toMatch(/请求次数必须是整数/);
    expect(refusal("ModelRequestRateLimitGroup", '{"vip": [1]}')).toMatch(/ModelRequestRateLimitGroup 格式错误/);
    expect(refusal("ModelRequestRateLimitGroup", "[1, 2]")).toMatch(/应为 JSON 对象/);
  });
});

describe("floats", () => {
  it("accept decimal numbers and refuse the rest", () => {
    expect(accepted("Price", "7.3").value).toBe(7.3);
    expect(accepted("ChannelDisableThreshold", "0").value).toBe(0);
    for (const bad of ["abc", "", "NaN", "Infinity", "1,5"]) expect(refusal("Price", bad)).toBe("Price 的值必须是数字");
    expect(refusal("Price", "-1")).toBe("Price 的值不能小于 0");
    expect(refusal("QuotaPerUnit", "0")).toBe("QuotaPerUnit 的值必须大于 0");
  });
});

describe("strings", () => {
  it("restrict DataExportDefaultTime to hour, day and week", () => {
    expect(accepted("DataExportDefaultTime", "week").value).toBe("week");
    expect(refusal("DataExportDefaultTime", "month")).toBe("DataExportDefaultTime 的值必须是 hour、day、week 之一");
  });

  it("trim addresses, drop trailing slashes and require http(s)", () => {
    expect(accepted("ServerAddress", " https://gw.example.com/ ").raw).toBe("https://gw.example.com");
    expect(accepted("ServerAddress", "").raw).toBe("");
    expect(refusal("PayAddress", "pay.example.com")).toBe("PayAddress 必须是以 http:// 或 https:// 开头的地址");
  });

  it("keep Markdown content verbatim and normalise word and domain lists", () => {
    expect(accepted("Notice", "  # 公告\n").raw).toBe("  # 公告\n");
    expect(accepted("SensitiveWords", " a \n\n b\r\n").raw).toBe("a\nb");
    expect(accepted("EmailDomainWhitelist", "Gmail.com, qq.com,,").raw).toBe("gmail.com,qq.com");
  });
});

describe("JSON options", () => {
  const jsonKeys = [
    "ModelPrice",
    "ModelRatio",
    "CompletionRatio",
    "GroupRatio",
    "UserUsableGroups",
    "Chats",
    "TopupGroupRatio",
    "CacheRatio",
  ];

  it.each(jsonKeys)("%s refuses malformed JSON with the spec's message", (key) => {
    for (const bad of ["{", "not json", "", "{'a': 1}", '{"a": 1,}']) expect(refusal(key, bad)).toBe(INVALID_JSON_MESSAGE);
    expect(INVALID_JSON_MESSAGE).toBe("不是合法的 JSON 字符串");
  });

  it("ratio tables take non-negative numbers only", () => {
    expect(accepted("ModelRatio", '{"gpt-4o": 1.25, "free": 0}').value).toEqual({ "gpt-4o": 1.25, free: 0 });
    expect(refusal("ModelRatio", '{"gpt-4o": -1}')).toBe("ModelRatio 格式错误：gpt-4o：倍率不能为负数");
    expect(refusal("ModelRatio", '{"gpt-4o": "1"}')).toBe("ModelRatio 格式错误：gpt-4o：倍率必须是数字");
    expect(refusal("GroupRatio", '{"vip": -0.5}')).toBe("GroupRatio 格式错误：vip：分组倍率不能为负数");
    expect(refusal("ModelPrice", "[1, 2]")).toMatch(/^ModelPrice 格式错误：应为 JSON 对象/);
    expect(refusal("CompletionRatio", "null")).toMatch(/^CompletionRatio 格式错误：应为 JSON 对象/);
    expect(refusal("TopupGroupRatio", '{"": 1}')).toMatch(/^TopupGroupRatio 格式错误：.*名称不能为空/);
  });

  it("UserUsableGroups maps group names to labels", () => {
    expect(accepted("UserUsableGroups", '{"default": "默认分组"}').value).toEqual({ default: "默认分组" });
    expect(refusal("UserUsableGroups", '{"default": 1}')).toBe("UserUsableGroups 格式错误：default：分组说明必须是字符串");
  });

  it("Chats is a list of single {name: link} objects", () => {
    expect(accepted("Chats", '[{"NextChat": "https://app.nextchat.dev/#/?settings={\\"key\\":\\"{key}\\"}"}]').value).toHaveLength(1);
    expect(accepted("Chats", "[]").value).toEqual([]);
    expect(refusal("Chats", '{"a": "b"}')).toMatch(/^Chats 格式错误：应为 JSON 数组/);
    expect(refusal("Chats", '[{"a": "b", "c": "d"}]')).toMatch(/^Chats 格式错误：0：每一项必须是/);
    expect(refusal("Chats", '[{"a": 1}]')).toBe("Chats 格式错误：0.a：链接必须是字符串");
  });

  it("store the submitted text as given, so the editor shows the admin's own formatting", () => {
    const pretty = '{\n  "default": 1,\n  "vip": 2\n}';
    expect(accepted("GroupRatio", pretty).raw).toBe(pretty);
  });
});

describe("stored values", () => {
  it("fall back to the default when the stored string no longer validates", () => {
    expect(readStoredOption("RetryTimes", "oops")).toEqual({ value: 0, raw: "0", invalid: expect.any(String) });
    expect(readStoredOption("GroupRatio", "{bad").value).toEqual({ default: 1, vip: 1, svip: 1 });
    expect(readStoredOption("RetryTimes", "2")).toEqual({ value: 2, raw: "2" });
  });
});

describe("cross-key rules", () => {
  const base = defaultOptionValues().values;
  const withValues = (over: Partial<Record<keyof OptionValues, unknown>>) => ({ ...base, ...over }) as OptionValues;

  it.each([
    [
      "GitHubOAuthEnabled",
      { GitHubClientId: "id", GitHubClientSecret: "s" },
      "无法启用 GitHub OAuth，请先填入 GitHub Client Id 以及 GitHub Client Secret！",
    ],
    [
      "LinuxDOOAuthEnabled",
      { LinuxDOClientId: "id", LinuxDOClientSecret: "s" },
      "无法启用 LinuxDO OAuth，请先填入 LinuxDO Client Id 以及 LinuxDO Client Secret！",
    ],
    ["WeChatAuthEnabled", { WeChatServerAddress: "https://wx.example.com", WeChatServerToken: "t" }, "无法启用微信登录"],
    ["TelegramOAuthEnabled", { TelegramBotToken: "t", TelegramBotName: "bot" }, "无法启用 Telegram OAuth"],
    ["TurnstileCheckEnabled", { TurnstileSiteKey: "site", TurnstileSecretKey: "secret" }, "无法启用 Turnstile 校验"],
    ["EmailVerificationEnabled", { SMTPServer: "smtp.example.com" }, "无法启用邮箱验证"],
  ] as const)("%s needs its settings before it can be enabled", (key, complete, message) => {
    const needs = Object.keys(complete);
    for (const missing of needs) {
      const partial = withValues({ ...complete, [missing]: "" });
      expect(crossKeyError(key, true, partial)).toContain(message);
    }
    expect(crossKeyError(key, true, withValues(complete))).toBeNull();
    expect(crossKeyError(key, false, base)).toBeNull();
  });

  it("refuses e-mail domain restriction without domains and payment settings without a server address", () => {
    expect(crossKeyError("EmailDomainRestrictionEnabled", true, withValues({ EmailDomainWhitelist: "" }))).toBe(
      "无法启用邮箱域名限制，请先填入限制的邮箱域名！",
    );
    expect(crossKeyError("EmailDomainRestrictionEnabled", true, base)).toBeNull();
    expect(crossKeyError("PayAddress", "https://pay.example.com", withValues({ ServerAddress: "" }))).toMatch(/服务器地址/);
    expect(crossKeyError("PayAddress", "", withValues({ ServerAddress: "" }))).toBeNull();
    expect(crossKeyError("PayAddress", "https://pay.example.com", base)).toBeNull();
    for (const key of ["StripeApiSecret", "StripeWebhookSecret", "StripePriceId"] as const) {
      expect(crossKeyError(key, "x_123", withValues({ ServerAddress: "" }))).toMatch(/服务器地址/);
      expect(crossKeyError(key, "x_123", base)).toBeNull();
    }
  });
});

describe("the registry in the browser", () => {
  it("imports nothing that needs the server, directly or through another module", () => {
    const root = path.resolve(import.meta.dirname, "../..");
    const seen = new Set<string>();
    const imports: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const [, spec] of readFileSync(file, "utf8").matchAll(/^import[^"']*["']([^"']+)["']/gm)) {
        imports.push(spec!);
        if (!spec!.startsWith("@/") && !spec!.startsWith(".")) continue;
        const base = spec!.startsWith("@/") ? path.join(root, spec!.slice(2)) : path.resolve(path.dirname(file), spec!);
        visit([`${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")].find((f) => existsSync(f))!);
      }
    };
    visit(path.join(root, "lib/options/registry.ts"));
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((spec) => /^(node:|@\/lib\/(env|db|server|cache)\b|server-only|@prisma\/)/.test(spec))).toEqual([]);
  });
});

describe("the settings tabs' fields", () => {
  it("list each section's options in the order the tab shows and saves them", () => {
    const keys = (section: Parameters<typeof sectionFields>[0]) => sectionFields(section).map((f) => f.key);
    expect(keys("general")).toEqual([
      "TopUpLink",
      "ChatLink",
      "ChatLink2",
      "QuotaPerUnit",
      "RetryTimes",
      "SessionStickyTTLSeconds",
      "DisplayInCurrencyEnabled",
      "DisplayTokenStatEnabled",
      "DefaultCollapseSidebar",
      "SelfUseModeEnabled",
    ]);
    expect(keys("dashboard")).toEqual(["DataExportInterval", "DataExportDefaultTime", "DataExportEnabled"]);
    expect(keys("smtp")).toEqual(["SMTPServer", "SMTPPort", "SMTPAccount", "SMTPFrom", "SMTPToken", "SMTPSSLEnabled"]);
    // A toggle after the settings it needs: saved in this order.
    expect(keys("emailDomains")).toEqual(["EmailDomainWhitelist", "EmailDomainRestrictionEnabled", "EmailAliasRestrictionEnabled"]);
    expect(keys("other")).toEqual(["Notice", "SystemName", "Logo", "HomePageContent", "About", "Footer"]);
  });

  it("take their input and limits from the entry", () => {
    const field = (section: Parameters<typeof sectionFields>[0], key: string) => sectionFields(section).find((f) => f.key === key)!;
    expect(field("general", "RetryTimes")).toMatchObject({ input: "number", kind: "int", min: 0, label: "失败重试次数" });
    expect(field("dashboard", "DataExportDefaultTime")).toMatchObject({
      input: "select",
      choices: [
        { value: "hour", label: "小时" },
        { value: "day", label: "天" },
        { value: "week", label: "周" },
      ],
    });
    expect(field("worker", "WorkerValidKey").input).toBe("secret");
    expect(field("emailDomains", "EmailDomainWhitelist")).toMatchObject({ input: "tags", wide: true });
    expect(field("smtp", "SMTPSSLEnabled").forcedOn?.({ SMTPPort: "465" })).toBe("端口 465 必须使用 SSL");
    // Every offered option is a known, single-section entry; secrets are edited write-only.
    for (const section of Object.keys(OPTION_SECTIONS) as (keyof typeof OPTION_SECTIONS)[])
      for (const f of sectionFields(section)) if (isSecretOption(f.key)) expect(f.input, f.key).toBe("secret");
  });

  it("check a value with the server's parser, naming the field by its label", () => {
    expect(formError("RetryTimes", "1.5")).toBe("失败重试次数 的值必须是整数");
    expect(formError("ChannelTestInterval", "20000")).toBe("定时测试所有通道 的值不能大于 10080");
    expect(formError("ChannelTestInterval", "45")).toBeNull();
    expect(formError("QuotaPerUnit", "0")).toBe("请输入大于 0 的数字");
    expect(formError("TopupGroupRatio", '{"default": -1}')).toMatch(/^充值分组倍率 格式错误：default：充值分组倍率不能为负数/);
    expect(formError("Chats", "[{")).toBe(INVALID_JSON_MESSAGE);
    expect(parseOption("QuotaPerUnit", "0").ok).toBe(false);
  });
});
