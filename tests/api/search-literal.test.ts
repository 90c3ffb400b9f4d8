// Every console search matches `%` and `_` as typed, not as LIKE's wildcards (issue 20.11): users,
// keys (name and key fragment), channels (name, group, model) and redemption codes.
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { call, createUser, sessionCookieFor } from "@/tests/helpers/api";
import { seedChannel } from "@/tests/helpers/relay";
import * as userSearch from "@/app/api/user/search/route";
import * as tokens from "@/app/api/token/route";
import * as tokenSearch from "@/app/api/token/search/route";
import * as channelSearch from "@/app/api/channel/search/route";
import * as redemptions from "@/app/api/redemption/route";
import * as redemptionSearch from "@/app/api/redemption/search/route";

let root: { id: number; cookie: string };
beforeAll(async () => {
  const row = await (await getDb()).user.findUniqueOrThrow({ where: { username: "root" } });
  root = { id: row.id, cookie: await sessionCookieFor(row.id) };
});

type Item = { name?: string; username?: string };
const names = (res: { json: { data?: { items: Item[] } } }) => res.json.data!.items.map((i) => i.name ?? i.username).sort();

describe("console searches match % and _ literally", () => {
  it("users", async () => {
    for (const username of ["lit_user", "litxuser", "lit%pct", "litzzpct"]) await createUser({ username });
    const search = (keyword: string) =>
      call(userSearch.GET, "GET", `/api/user/search?keyword=${encodeURIComponent(keyword)}`, { as: root });
    expect(names(await search("lit_user"))).toEqual(["lit_user"]);
    expect(names(await search("lit%pct"))).toEqual(["lit%pct"]);
    expect((await search("_")).json.data.items.map((u: { username: string }) => u.username)).toEqual(["lit_user"]);
  });

  it("keys, by name", async () => {
    const u = await createUser({ username: "lit-keys" });
    for (const name of ["k_1", "kx1", "k%2", "kyy2"]) {
      const res = await call(tokens.POST, "POST", "/api/token/", {
        as: u,
        body: { name, remain_quota: 0, expired_time: -1, unlimited_quota: true },
      });
      expect(res.json.success).toBe(true);
    }
    const search = (keyword: string) => call(tokenSearch.GET, "GET", `/api/token/search?keyword=${encodeURIComponent(keyword)}`, { as: u });
    expect(names(await search("k_1"))).toEqual(["k_1"]);
    expect(names(await search("k%2"))).toEqual(["k%2"]);
    expect(names(await search("%"))).toEqual(["k%2"]);
    // A key fragment with a wildcard matches no hint (hints are letters and digits).
    expect(names(await call(tokenSearch.GET, "GET", "/api/token/search?token=_", { as: u }))).toEqual([]);
  });

  it("channels, by name, group and model", async () => {
    await seedChannel({ base_url: "http://127.0.0.1:9", name: "ch_lit", models: "m_1", group: "g_1" });
    await seedChannel({ base_url: "http://127.0.0.1:9", name: "chxlit", models: "mx1", group: "gx1" });
    const search = (query: string) => call(channelSearch.GET, "GET", `/api/channel/search?${query}`, { as: root });
    expect(names(await search("keyword=ch_lit"))).toEqual(["ch_lit"]);
    expect(names(await search("group=g_1"))).toEqual(["ch_lit"]);
    expect(names(await search("model=m_1"))).toEqual(["ch_lit"]);
  });

  it("redemption codes", async () => {
    for (const name of ["r_1", "rx1"]) {
      expect(
        (await call(redemptions.POST, "POST", "/api/redemption/", { as: root, body: { name, quota: 1, count: 1 } })).json.success,
      ).toBe(true);
    }
    const res = await call(redemptionSearch.GET, "GET", "/api/redemption/search?keyword=r_1", { as: root });
    expect(names(res)).toEqual(["r_1"]);
  });
});
