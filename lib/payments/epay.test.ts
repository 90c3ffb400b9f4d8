// The EPay signature against a digest computed independently (Python's hashlib over the sorted
// `k=v&…` string with the key appended), and the money parsing the notify check relies on.
import { describe, expect, it } from "vitest";
import { centsToMoney, epayForm, epaySign, epayVerify, moneyToCents } from "@/lib/payments/epay";

const FORM = {
  payAddress: "https://pay.example.com/",
  pid: "1001",
  key: "KEY123",
  method: "zfb" as const,
  tradeNo: "USR1NOabc1231700000000",
  money: "73.00",
  name: "TUC10",
  notifyUrl: "http://x/api/user/epay/notify",
  returnUrl: "http://x/topup",
};

describe("epay", () => {
  it("signs the sorted non-empty fields with the key appended, as the gateway does", () => {
    const { url, params } = epayForm(FORM);
    expect(url).toBe("https://pay.example.com/submit.php");
    expect(params).toMatchObject({ type: "alipay", device: "pc", sign_type: "MD5" });
    expect(params.sign).toBe("fd38198816afa970d57999bd41e5dbe2");
    // sign, sign_type and empty values are not signed.
    expect(epaySign({ ...params, extra: "" }, "KEY123")).toBe(params.sign);
  });

  it("verifies a notification only with the right key and untouched fields", () => {
    const { params } = epayForm({ ...FORM, method: "wx" });
    expect(params.type).toBe("wxpay");
    expect(epayVerify(params, "KEY123")).toBe(true);
    expect(epayVerify({ ...params, sign: params.sign!.toUpperCase() }, "KEY123")).toBe(true);
    expect(epayVerify(params, "KEY124")).toBe(false);
    expect(epayVerify({ ...params, money: "0.01" }, "KEY123")).toBe(false);
    expect(epayVerify({ ...params, sign: "" }, "KEY123")).toBe(false);
    expect(epayVerify({ ...params, sign: "zz" }, "KEY123")).toBe(false);
    expect(epayVerify(params, "")).toBe(false);
  });

  it("reads money with at most two decimals, exactly", () => {
    expect(moneyToCents("73.00")).toBe(7300n);
    expect(moneyToCents("7.3")).toBe(730n);
    expect(moneyToCents("7")).toBe(700n);
    expect(moneyToCents("0.10")).toBe(10n);
    for (const bad of ["", "7.305", "-1", "1e3", " 7", "7.", "abc", undefined]) expect(moneyToCents(bad)).toBeNull();
    expect(centsToMoney(730n)).toBe("7.30");
    expect(centsToMoney(5)).toBe("0.05");
  });
});
