// System options through their routes and the cache: root-only access, validation messages,
// secrets never listed, and changes reaching a second instance's cache.
import { beforeAll, describe, expect, it } from "vitest";
import * as optionRoute from "@/app/api/option/route";
import * as resetRoute from "@/app/api/option/rest_model_ratio/route";
import * as groupRoute from "@/app/api/group/route";
import { getDb } from "@/lib/db";
import { getOption, getOptions, OptionsCache, reloadOptions } from "@/lib/options";
import { defaultRaw } from "@/lib/options/registry";
import { processSingleton } from "@/lib/singleton";
import { call, createUser } from "@/tests/helpers/api";

type Who = { id: number; cookie: string };
let root: Who;
let admin: Who;
let user: Who;

const put = (key: string, value: unknown, as: Who = root) => call(optionRoute.PUT, "PUT", "/api/option/", { as, body: { key, value } });
const listed = async () => {
  const res = await call(optionRoute.GET, "GET", "/api/option/", { as: root });
  expect(res.json.success).toBe(true);
  return new Map((res.json.data as Array<{ key: string; value: string }>).map((o) => [o.key, o.value]));
};

beforeAll(async () => {
  root = await createUser({ username: "optroot", role: 100 });
  admin = await createUser({ username: "optadmin", role: 10 });
  user = await createUser({ username: "optuser", role: 1 });
});

describe("GET and PUT /api/option/", () => {
  it("are for root only", async () => {
    for (const as of [admin, user]) {
      const list = await call(optionRoute.GET, "GET", "/api/option/", { as });
      expect(list.status).toBe(403);
      expect(list.json.success).toBe(false);
      const write = await put("Notice", "hi", as);
      expect(write.status).toBe(403);
    }
    expect((await call(optionRoute.GET, "GET", "/api/option/")).status).toBe(401);
    expect(await getOption("Notice")).toBe("");
  });

  it("lists every option as a key/value string pair, defaults included", async () => {
    const options = await listed();
    expect(options.get("QuotaPerUnit")).toBe("500000");
    expect(options.get("DrawingEnabled")).toBe("false");
    expect(options.get("TaskEnabled")).toBe("false");
    expect(options.get("TurnstileSiteKey")).toBe("");
    expect(JSON.parse(options.get("ModelRatio")!)["gpt-4o"]).toBe(1.25);
    for (const value of options.values()) expect(typeof value).toBe("string");
  });

  it("saves secrets but lists them only as set or not, never their values", async () => {
    const secretRows = async () => {
      const res = await call(optionRoute.GET, "GET", "/api/option/", { as: root });
      const rows = (res.json.data as Array<{ key: string; value: string; secret?: boolean; set?: boolean }>).filter((o) => o.secret);
      return { text: res.text, rows: new Map(rows.map((o) => [o.key, o])) };
    };
    const before = await secretRows();
    expect(before.rows.get("SMTPToken")).toEqual({ key: "SMTPToken", value: "", secret: true, set: false });
    for (const [key, value] of [
      ["SMTPToken", "smtp-pass-123"],
      ["GitHubClientSecret", "gh-secret-456"],
      ["EpayKey", "epay-key-789"],
      ["TurnstileSecretKey", "ts-secret-000"],
    ] as const) {
      const res = await put(key, value);
      expect(res.json).toEqual({ success: true, message: "", data: null });
      expect(await getOption(key)).toBe(value);
    }
    const after = await secretRows();
    for (const secret of ["smtp-pass-123", "gh-secret-456", "epay-key-789", "ts-secret-000"]) expect(after.text).not.toContain(secret);
    // Exactly the keys ending in Token, Secret or Key (or new-api's dotted `secret`) are secrets, except the public Turnstile site key.
    expect([...after.rows.keys()].sort()).toEqual(
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
    for (const [key, row] of after.rows) {
      expect(row.value).toBe("");
      expect(row.set).toBe(["SMTPToken", "GitHubClientSecret", "EpayKey", "TurnstileSecretKey"].includes(key));
    }
    for (const key of ["SMTPToken", "GitHubClientSecret", "EpayKey", "TurnstileSecretKey"]) await put(key, "");
    expect((await secretRows()).rows.get("EpayKey")?.set).toBe(false);
  });

  it("keeps ChannelPrivateAddressAllowed with root: on by default, read and written by root only", async () => {
    expect((await listed()).get("ChannelPrivateAddressAllowed")).toBe("true");
    expect(await getOption("ChannelPrivateAddressAllowed")).toBe(true);
    expect((await put("ChannelPrivateAddressAllowed", false, admin)).status).toBe(403);
    expect(await getOption("ChannelPrivateAddressAllowed")).toBe(true);
    expect((await put("ChannelPrivateAddressAllowed", "no")).json).toEqual({
      success: false,
      message: "ChannelPrivateAddressAllowed 的值只能是 true 或 false",
    });
    expect((await put("ChannelPrivateAddressAllowed", false)).json.success).toBe(true);
    expect((await listed()).get("ChannelPrivateAddressAllowed")).toBe("false");
    expect(await getOption("ChannelPrivateAddressAllowed")).toBe(false);
    expect((await put("ChannelPrivateAddressAllowed", true)).json.success).toBe(true);
  });

  it("normalises numbers and booleans sent as JSON values to strings", async () => {
    expect((await put("RetryTimes", 2)).json.success).toBe(true);
    expect((await put("DisplayTokenStatEnabled", false)).json.success).toBe(true);
    const options = await listed();
    expect(options.get("RetryTimes")).toBe("2");
    expect(options.get("DisplayTokenStatEnabled")).toBe("false");
    expect((await getOptions()).RetryTimes).toBe(2);
    const db = await getDb();
    expect(await db.option.findUnique({ where: { key: "RetryTimes" } })).toEqual({ key: "RetryTimes", value: "2" });
    await put("RetryTimes", "0");
    await put("DisplayTokenStatEnabled", "true");
  });

  it.each(["ModelPrice", "ModelRatio", "CompletionRatio", "GroupRatio", "UserUsableGroups", "Chats", "TopupGroupRatio", "CacheRatio"])(
    "refuses malformed JSON for %s with '不是合法的 JSON 字符串' and keeps the old value",
    async (key) => {
      const before = (await listed()).get(key);
      const res = await put(key, "{not json");
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ success: false, message: "不是合法的 JSON 字符串" });
      expect((await listed()).get(key)).toBe(before);
    },
  );

  it("refuses values of the wrong shape, kind or range with a message naming the option", async () => {
    const cases: Array<[string, unknown, string]> = [
      ["GroupRatio", '{"default": -1}', "GroupRatio 格式错误：default：分组倍率不能为负数"],
      ["ModelRatio", '{"gpt-4o": "cheap"}', "ModelRatio 格式错误：gpt-4o：倍率必须是数字"],
      ["DrawingEnabled", "yes", "DrawingEnabled 的值只能是 true 或 false"],
      ["RetryTimes", "1.5", "RetryTimes 的值必须是整数"],
      ["DataExportInterval", 0, "DataExportInterval 的值不能小于 1"],
      ["MinTopUp", "0", "MinTopUp 的值不能小于 1"],
      ["Price", "abc", "Price 的值必须是数字"],
      ["NotAnOption", "1", "未知的配置项：NotAnOption"],
    ];
    for (const [key, value, message] of cases) {
      const res = await put(key, value);
      expect(res.json, key).toEqual({ success: false, message });
    }
    const db = await getDb();
    expect(await db.option.findUnique({ where: { key: "NotAnOption" } })).toBeNull();
  });

  it("refuses a body without key or with an object value", async () => {
    expect((await call(optionRoute.PUT, "PUT", "/api/option/", { as: root, body: { value: "1" } })).json.success).toBe(false);
    expect((await put("Notice", { a: 1 })).json.success).toBe(false);
  });

  it("will not enable a login method before its credentials are set", async () => {
    await put("GitHubClientId", "");
    const refused = await put("GitHubOAuthEnabled", true);
    expect(refused.json).toEqual({
      success: false,
      message: "无法启用 GitHub OAuth，请先填入 GitHub Client Id 以及 GitHub Client Secret！",
    });
    expect(await getOption("GitHubOAuthEnabled")).toBe(false);

    expect((await put("GitHubClientId", "Iv1.abc")).json.success).toBe(true);
    expect((await put("GitHubClientSecret", "gh-secret")).json.success).toBe(true);
    expect((await put("GitHubOAuthEnabled", true)).json.success).toBe(true);
    expect(await getOption("GitHubOAuthEnabled")).toBe(true);
    await put("GitHubOAuthEnabled", false);

    const smtp = await put("EmailVerificationEnabled", "true");
    expect(smtp.json.success).toBe(false);
    expect(smtp.json.message).toContain("SMTP");
  });

  it("resets ModelRatio to the default table", async () => {
    expect((await put("ModelRatio", '{"only-model": 1}')).json.success).toBe(true);
    expect(await getOption("ModelRatio")).toEqual({ "only-model": 1 });
    expect((await call(resetRoute.POST, "POST", "/api/option/rest_model_ratio", { as: admin })).status).toBe(403);
    const res = await call(resetRoute.POST, "POST", "/api/option/rest_model_ratio", { as: root });
    expect(res.json).toEqual({ success: true, message: "重置模型倍率成功", data: null });
    expect((await listed()).get("ModelRatio")).toBe(defaultRaw("ModelRatio"));
  });
});

describe("the options cache", () => {
  it("serves reads from memory: a row changed behind its back shows only after a reload", async () => {
    await getOptions();
    const db = await getDb();
    await db.option.upsert({
      where: { key: "SystemName" },
      create: { key: "SystemName", value: "Elsewhere" },
      update: { value: "Elsewhere" },
    });
    expect(await getOption("SystemName")).toBe("Qiao");
    await reloadOptions();
    expect(await getOption("SystemName")).toBe("Elsewhere");
    await put("SystemName", "Qiao");
  });

  it("makes a write visible to a second, independent instance after its refresh", async () => {
    const other = new OptionsCache();
    expect((await other.current()).values.Notice).toBe("");

    expect((await put("Notice", "## 维护通知\n今晚升级")).json.success).toBe(true);
    // This instance sees it at once; the other one on its next periodic refresh.
    expect(await getOption("Notice")).toBe("## 维护通知\n今晚升级");
    expect((await other.current()).values.Notice).toBe("");
    await other.reload();
    expect((await other.current()).values.Notice).toBe("## 维护通知\n今晚升级");
    await put("Notice", "");
  });

  it("ignores stored rows of unknown keys and falls back to the default for invalid stored values", async () => {
    const db = await getDb();
    await db.option.createMany({
      data: [
        { key: "LegacyOption", value: "x" },
        { key: "ChannelDisableThreshold", value: "fast" },
      ],
    });
    const values = await reloadOptions();
    expect(values.ChannelDisableThreshold).toBe(5);
    expect((await listed()).has("LegacyOption")).toBe(false);
    await db.option.deleteMany({ where: { key: { in: ["LegacyOption", "ChannelDisableThreshold"] } } });
    await reloadOptions();
  });

  it("starts one unref'd refresh timer for the process", () => {
    const timer = processSingleton<{ timer?: NodeJS.Timeout }>("options", () => ({})).timer;
    expect(timer).toBeDefined();
    expect(timer!.hasRef()).toBe(false);
  });
});

describe("GET /api/group/", () => {
  it("lists the GroupRatio group names to admins", async () => {
    const res = await call(groupRoute.GET, "GET", "/api/group/", { as: admin });
    expect(res.json).toEqual({ success: true, message: "", data: ["default", "vip", "svip"] });
    expect((await put("GroupRatio", '{"default": 1, "enterprise": 0.8}')).json.success).toBe(true);
    expect((await call(groupRoute.GET, "GET", "/api/group/", { as: admin })).json.data).toEqual(["default", "enterprise"]);
    expect((await call(groupRoute.GET, "GET", "/api/group/", { as: user })).status).toBe(403);
    await put("GroupRatio", defaultRaw("GroupRatio"));
  });
});
