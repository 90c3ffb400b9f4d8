// GET /api/pricing: the models enabled channels serve, priced as the relay bills them, scoped to
// the groups the viewer may pick.
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { defaultRaw } from "@/lib/options/registry";
import { listPricing } from "@/lib/billing/pricing";
import { call, createUser, sessionCookieFor } from "@/tests/helpers/api";
import * as pricing from "@/app/api/pricing/route";
import * as channels from "@/app/api/channel/route";

type Caller = { id: number; cookie: string };
let root: Caller;
let user: Caller;
let special: Caller;

async function addChannel(name: string, models: string, group: string, status = 1): Promise<number> {
  const res = await call(channels.POST, "POST", "/api/channel/", {
    as: root,
    body: { type: 1, name, key: `sk-${name}`, models, group, status },
  });
  expect(res.json.success).toBe(true);
  return res.json.data[0].id;
}

beforeAll(async () => {
  const db = await getDb();
  const row = await db.user.findUniqueOrThrow({ where: { username: "root" } });
  root = { id: row.id, cookie: await sessionCookieFor(row.id) };
  user = await createUser({ username: "pruser" });
  special = await createUser({ username: "prspecial", group: "special" });
  await addChannel("main", "gpt-4o,dall-e-3,unpriced-model", "default");
  await addChannel("vip", "gpt-4o,gpt-4o-mini", "vip");
  await addChannel("svip", "claude-3-opus-20240229", "svip");
  await addChannel("special", "gpt-3.5-turbo", "special");
  await addChannel("off", "gpt-4-turbo", "default", 2);
});

type PricingAnswer = {
  success: boolean;
  message: string;
  data: any;
  group_ratio: Record<string, number>;
  usable_group: Record<string, string>;
};

async function get(as?: Caller, cookie?: string) {
  const res = await call(pricing.GET, "GET", "/api/pricing", { as, cookie });
  return { ...res, json: res.json as unknown as PricingAnswer };
}
const byModel = (data: Array<{ model_name: string }>) => Object.fromEntries(data.map((e) => [e.model_name, e]));

describe("GET /api/pricing", () => {
  it("shows a visitor the default group: its ratio, and the priced models enabled channels serve there", async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(["data", "group_ratio", "message", "success", "usable_group"]);
    expect(res.json).toMatchObject({ success: true, usable_group: { default: "默认分组" }, group_ratio: { default: 1 } });
    expect(res.json.data).toEqual([
      { model_name: "dall-e-3", quota_type: 1, model_ratio: 0, model_price: 0.04, completion_ratio: 0, enable_groups: ["default"] },
      { model_name: "gpt-4o", quota_type: 0, model_ratio: 1.25, model_price: 0, completion_ratio: 4, enable_groups: ["default"] },
    ]);
  });

  it("shows a signed-in user the usable groups with their ratios, and each model's groups among them", async () => {
    await updateOption("GroupRatio", JSON.stringify({ default: 1, vip: 0.8, svip: 0.5 }));
    const res = await get(user);
    expect(res.json.usable_group).toEqual({ default: "默认分组", vip: "vip分组" });
    expect(res.json.group_ratio).toEqual({ default: 1, vip: 0.8 });
    const models = byModel(res.json.data);
    expect(Object.keys(models)).toEqual(["dall-e-3", "gpt-4o", "gpt-4o-mini"]);
    expect(models["gpt-4o"]!).toMatchObject({ enable_groups: ["default", "vip"] });
    expect(models["gpt-4o-mini"]!).toMatchObject({ quota_type: 0, model_ratio: 0.075, completion_ratio: 4, enable_groups: ["vip"] });
    // svip is not usable: neither its ratio nor its only model is shown.
    expect(res.text).not.toContain("svip");
    expect(res.text).not.toContain("claude");
    await updateOption("GroupRatio", JSON.stringify({ default: 1, vip: 1, svip: 1 }));
  });

  it("adds a user's own group (ratio 1 when GroupRatio has no entry) and the models it reaches", async () => {
    const res = await get(special);
    expect(res.json.usable_group).toEqual({ default: "默认分组", vip: "vip分组", special: "用户分组" });
    expect(res.json.group_ratio).toEqual({ default: 1, vip: 1, special: 1 });
    expect(byModel(res.json.data)["gpt-3.5-turbo"]).toEqual({
      model_name: "gpt-3.5-turbo",
      quota_type: 0,
      model_ratio: 0.25,
      model_price: 0,
      completion_ratio: 3,
      enable_groups: ["special"],
    });
    // Another user does not see that group or its model.
    expect(byModel((await get(user)).json.data)["gpt-3.5-turbo"]).toBeUndefined();
  });

  it("treats an invalid session cookie as a visitor, not as an error", async () => {
    const res = await get(undefined, "qiao_session=not-a-session");
    expect(res.status).toBe(200);
    expect(res.json.usable_group).toEqual({ default: "默认分组" });
  });

  it("follows ratio and price changes at once, and lists an unpriced model only in self-use mode", async () => {
    await updateOption("ModelRatio", JSON.stringify({ "gpt-4o": 2.5, "gpt-4o-mini": 0.075 }));
    await updateOption("ModelPrice", JSON.stringify({ "dall-e-3": 0.08 }));
    await updateOption("CompletionRatio", JSON.stringify({ "gpt-4o": 3 }));
    let models = byModel((await get()).json.data);
    expect(models["gpt-4o"]).toMatchObject({ model_ratio: 2.5, completion_ratio: 3 });
    expect(models["dall-e-3"]).toMatchObject({ model_price: 0.08 });
    expect(models["unpriced-model"]).toBeUndefined();
    await updateOption("SelfUseModeEnabled", "true");
    models = byModel((await get()).json.data);
    expect(models["unpriced-model"]).toMatchObject({ quota_type: 0, model_ratio: 37.5, enable_groups: ["default"] });
    await updateOption("SelfUseModeEnabled", "false");
    for (const key of ["ModelRatio", "ModelPrice", "CompletionRatio"] as const) await updateOption(key, defaultRaw(key));
  });

  it("follows channel changes at once: a disabled channel's models leave, an enabled one's arrive", async () => {
    const db = await getDb();
    const off = await db.channel.findFirstOrThrow({ where: { name: "off" } });
    expect(byModel((await get()).json.data)["gpt-4-turbo"]).toBeUndefined();
    await call(channels.PUT, "PUT", "/api/channel/", { as: root, body: { id: off.id, status: 1 } });
    expect(byModel((await get()).json.data)["gpt-4-turbo"]).toMatchObject({ quota_type: 0, enable_groups: ["default"] });
    await call(channels.PUT, "PUT", "/api/channel/", { as: root, body: { id: off.id, status: 2 } });
    expect(byModel((await get()).json.data)["gpt-4-turbo"]).toBeUndefined();
  });

  it("is the same function a server component calls", async () => {
    const viaLib = await listPricing({ group: "default" });
    const viaApi = await get(user);
    expect({ success: true, message: "", ...viaLib }).toEqual(viaApi.json);
    expect(await listPricing(null)).toEqual({
      data: (await get()).json.data,
      group_ratio: { default: 1 },
      usable_group: { default: "默认分组" },
    });
  });
});
