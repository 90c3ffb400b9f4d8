// POST /api/user/amount: the price of an online top-up (amount × Price × TopupGroupRatio), its
// refusals, and the top-up fields of GET /api/status.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { defaultRaw, type OptionKey } from "@/lib/options/registry";
import { TOPUP_MSG } from "@/lib/payments/schemas";
import { quoteTopUp } from "@/lib/payments/amount";
import { call, createUser } from "@/tests/helpers/api";
import * as amount from "@/app/api/user/amount/route";
import * as statusRoute from "@/app/api/status/route";

type Caller = { id: number; cookie: string };
let user: Caller;
let vip: Caller;

const changed = new Set<OptionKey>();
async function setOption(key: OptionKey, value: string) {
  changed.add(key);
  await updateOption(key, value);
}

async function enableOnlineTopUp() {
  await setOption("PayAddress", "https://pay.example.com");
  await setOption("EpayId", "1001");
  await setOption("EpayKey", "merchant-key");
}

beforeAll(async () => {
  await getDb();
  user = await createUser({ username: "wluser" });
  vip = await createUser({ username: "wlvip", group: "vip" });
});

afterEach(async () => {
  for (const key of changed) await updateOption(key, defaultRaw(key));
  changed.clear();
});

const quote = (body: unknown, as: Caller = user) => call(amount.POST, "POST", "/api/user/amount", { as, body });

async function expectRefused(body: unknown, message: string, as: Caller = user) {
  const res = await quote(body, as);
  expect(res.status).toBe(400);
  expect(res.json.success).toBe(false);
  expect(res.json.message).toContain(message);
  expect(res.json.data).toBeUndefined();
}

describe("POST /api/user/amount", () => {
  it("needs a signed-in user", async () => {
    const res = await call(amount.POST, "POST", "/api/user/amount", { body: { amount: 10 } });
    expect(res.status).toBe(401);
    expect(res.json.success).toBe(false);
  });

  it("refuses while online top-up is off, i.e. until PayAddress, EpayId and EpayKey are all set", async () => {
    await expectRefused({ amount: 10 }, TOPUP_MSG.disabled);
    await setOption("PayAddress", "https://pay.example.com");
    await setOption("EpayId", "1001");
    await expectRefused({ amount: 10 }, TOPUP_MSG.disabled);
    await setOption("EpayKey", "merchant-key");
    expect((await quote({ amount: 10 })).json).toEqual({ success: true, message: "", data: "73.00" });
  });

  it("prices amount × Price × the group's TopupGroupRatio, as a two-decimal string", async () => {
    await enableOnlineTopUp();
    await setOption("Price", "7.2");
    await setOption("TopupGroupRatio", JSON.stringify({ default: 1, vip: 0.9 }));
    expect((await quote({ amount: 1 })).json.data).toBe("7.20");
    expect((await quote({ amount: 25, top_up_code: "" })).json.data).toBe("180.00");
    expect((await quote({ amount: 10 }, vip)).json.data).toBe("64.80");
    // A group without an entry, or with 0, pays the plain price (new-api).
    await setOption("TopupGroupRatio", JSON.stringify({ default: 0 }));
    expect((await quote({ amount: 10 })).json.data).toBe("72.00");
    expect((await quote({ amount: 10 }, vip)).json.data).toBe("72.00");
  });

  it("computes exactly and rounds once, half up, to cents", async () => {
    await enableOnlineTopUp();
    await setOption("Price", "0.125");
    expect((await quote({ amount: 1 })).json.data).toBe("0.13");
    await setOption("Price", "7.3");
    await setOption("TopupGroupRatio", JSON.stringify({ default: 0.15 }));
    // 3 × 7.3 × 0.15 = 3.285 exactly (3.2849999… in binary floating point).
    expect((await quote({ amount: 3 })).json.data).toBe("3.29");
    expect((await quote({ amount: Number.MAX_SAFE_INTEGER })).json.data).toBe("9862883183941385.15");
  });

  it("refuses amounts below the minimum with the spec's text", async () => {
    await enableOnlineTopUp();
    await expectRefused({ amount: 0 }, "充值数量不能小于1");
    await expectRefused({ amount: -5 }, "充值数量不能小于1");
    await setOption("MinTopUp", "5");
    await expectRefused({ amount: 4 }, "充值数量不能小于5");
    expect((await quote({ amount: 5 })).json.data).toBe("36.50");
  });

  it("refuses a price of at most 0.01", async () => {
    await enableOnlineTopUp();
    await setOption("Price", "0");
    await expectRefused({ amount: 100 }, TOPUP_MSG.tooCheap);
    await setOption("Price", "0.001");
    await expectRefused({ amount: 10 }, TOPUP_MSG.tooCheap);
    expect((await quote({ amount: 11 })).json.data).toBe("0.01");
  });

  it("takes quota units when the console does not show currency: the minimum is MinTopUp × QuotaPerUnit", async () => {
    await enableOnlineTopUp();
    await setOption("DisplayInCurrencyEnabled", "false");
    await expectRefused({ amount: 499_999 }, "充值数量不能小于500000");
    expect((await quote({ amount: 500_000 })).json.data).toBe("7.30");
    expect((await quote({ amount: 1_250_000 })).json.data).toBe("18.25");
    const status = await call(statusRoute.GET, "GET", "/api/status");
    expect(status.json.data.min_topup).toBe(500_000);
  });

  it("refuses an amount that is not an integer, and a top_up_code that is not a string", async () => {
    await enableOnlineTopUp();
    for (const body of [{ amount: 1.5 }, { amount: "10" }, { amount: null }, {}, { amount: 1e300 }]) {
      await expectRefused(body, TOPUP_MSG.amountInvalid);
    }
    await expectRefused({ amount: 10, top_up_code: 5 }, "参数错误：top_up_code");
  });

  it("is the same function a server component calls", async () => {
    await expect(quoteTopUp({ group: "default" }, 10)).rejects.toThrow(TOPUP_MSG.disabled);
    await enableOnlineTopUp();
    expect(await quoteTopUp({ group: "default" }, 10)).toBe("73.00");
    await expect(quoteTopUp({ group: "default" }, 0)).rejects.toThrow("充值数量不能小于1");
  });
});

describe("top-up fields of GET /api/status", () => {
  it("reports the top-up link, the minimum in entry units and whether online top-up is on", async () => {
    let data = (await call(statusRoute.GET, "GET", "/api/status")).json.data;
    expect(data).toMatchObject({ top_up_link: "", min_topup: 1, enable_online_topup: false, price: 7.3 });
    await setOption("TopUpLink", "https://shop.example.com/buy");
    await setOption("MinTopUp", "3");
    await enableOnlineTopUp();
    data = (await call(statusRoute.GET, "GET", "/api/status")).json.data;
    expect(data).toMatchObject({ top_up_link: "https://shop.example.com/buy", min_topup: 3, enable_online_topup: true });
  });
});
