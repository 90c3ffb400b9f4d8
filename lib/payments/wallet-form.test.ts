import { describe, expect, it } from "vitest";
import {
  checkTopUpAmount,
  moneyText,
  clampTopUpAmount,
  offeredMethods,
  PAYMENT_METHODS,
  readRedeemCode,
  WALLET_MSG,
} from "@/lib/payments/wallet-form";

describe("wallet form (spec §5 Redeem and top-up, §8)", () => {
  it("sends the trimmed code and refuses an empty one with the spec's text", () => {
    expect(readRedeemCode("  abc123 ")).toEqual({ ok: true, key: "abc123" });
    expect(readRedeemCode("")).toEqual({ ok: false, message: "请输入兑换码！" });
    expect(readRedeemCode(" \n ")).toEqual({ ok: false, message: "请输入兑换码！" });
  });

  it("clamps the amount to a whole number of at least 1", () => {
    expect(clampTopUpAmount(10)).toBe(10);
    expect(clampTopUpAmount(0)).toBe(1);
    expect(clampTopUpAmount(-5)).toBe(1);
    expect(clampTopUpAmount(7.9)).toBe(7);
    expect(clampTopUpAmount("")).toBe(1);
    expect(clampTopUpAmount(" 25 ")).toBe(25);
    expect(clampTopUpAmount("abc")).toBe(1);
    expect(clampTopUpAmount(Number.POSITIVE_INFINITY)).toBe(1);
    expect(clampTopUpAmount(1e300)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("names the server's minimum when the amount is below it", () => {
    expect(checkTopUpAmount(4, 5)).toBe("充值数量不能小于5");
    expect(checkTopUpAmount(5, 5)).toBeNull();
    expect(checkTopUpAmount(1, 500000)).toBe("充值数量不能小于500000");
  });

  it("has the spec's texts and the two payment methods", () => {
    expect(WALLET_MSG.noTopUpLink).toBe("超级管理员未设置充值链接！");
    expect(WALLET_MSG.onlineDisabled).toBe("管理员未开启在线充值！");
    expect(WALLET_MSG.requestFailed).toBe("请求失败");
    expect(WALLET_MSG.amountError("充值金额过低")).toBe("错误：充值金额过低");
    expect(WALLET_MSG.redeemed("$0.20")).toBe("充值成功！充值额度：$0.20");
    expect(PAYMENT_METHODS.map((m) => [m.value, m.label])).toEqual([
      ["zfb", "支付宝"],
      ["wx", "微信"],
      ["stripe", "Stripe"],
    ]);
  });

  it("shows prices in 元 for CNY and by currency code otherwise", () => {
    expect(moneyText("73.00", "CNY")).toBe("73.00 元");
    expect(moneyText("8.00", "usd")).toBe("8.00 USD");
  });

  it("offers EPay's two methods and Stripe each while its gateway is on", () => {
    const values = (on: { epay: boolean; stripe: boolean }) => offeredMethods(on).map((m) => m.value);
    expect(values({ epay: true, stripe: false })).toEqual(["zfb", "wx"]);
    expect(values({ epay: false, stripe: true })).toEqual(["stripe"]);
    expect(values({ epay: true, stripe: true })).toEqual(["zfb", "wx", "stripe"]);
    expect(values({ epay: false, stripe: false })).toEqual([]);
  });
});
