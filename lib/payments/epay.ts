// The EPay (易支付) gateway's wire format (inventory §4.3, the `submit.php` protocol every EPay
// clone speaks): the signed form a payment is started with, and the signature check of the
// notification it sends back. Pure; no database.
import { createHash, timingSafeEqual } from "node:crypto";

/** The gateway's `type` for each of our methods. */
export const EPAY_TYPE = { zfb: "alipay", wx: "wxpay" } as const;
export type EpayMethod = keyof typeof EPAY_TYPE;

/** The fields that are signed: every parameter but `sign` and `sign_type`, and none that is empty. */
function signedPairs(params: Record<string, string>): [string, string][] {
  return Object.entries(params)
    .filter(([k, v]) => k !== "sign" && k !== "sign_type" && v !== "" && v !== undefined && v !== null)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** MD5 (lower-case hex) of the sorted `k=v&k=v` string with the merchant key appended. */
export function epaySign(params: Record<string, string>, key: string): string {
  const text = signedPairs(params)
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  return createHash("md5")
    .update(text + key, "utf8")
    .digest("hex");
}

/** Whether `params` (a notification) carries a valid signature for `key`; compared in constant time. */
export function epayVerify(params: Record<string, string>, key: string): boolean {
  const given = params.sign;
  if (!key || typeof given !== "string" || !/^[0-9a-f]{32}$/i.test(given)) return false;
  const expected = Buffer.from(epaySign(params, key), "utf8");
  return timingSafeEqual(expected, Buffer.from(given.toLowerCase(), "utf8"));
}

export type EpayForm = {
  /** Where the wallet posts the form: `{PayAddress}/submit.php`. */
  url: string;
  /** The form's fields, signed. */
  params: Record<string, string>;
};

/** The signed form that sends the user to the gateway to pay `money` (two decimals) for order `tradeNo`. */
export function epayForm(input: {
  payAddress: string;
  pid: string;
  key: string;
  method: EpayMethod;
  tradeNo: string;
  /** e.g. "7.30" */
  money: string;
  name: string;
  notifyUrl: string;
  returnUrl: string;
}): EpayForm {
  const params: Record<string, string> = {
    pid: input.pid,
    type: EPAY_TYPE[input.method],
    out_trade_no: input.tradeNo,
    notify_url: input.notifyUrl,
    return_url: input.returnUrl,
    name: input.name,
    money: input.money,
    device: "pc",
  };
  params.sign = epaySign(params, input.key);
  params.sign_type = "MD5";
  return { url: `${input.payAddress.replace(/\/+$/, "")}/submit.php`, params };
}

/** "7.30" → 730n; anything that is not a non-negative amount with at most two decimals → null. */
export function moneyToCents(money: string | undefined): bigint | null {
  const m = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(money ?? "");
  if (!m) return null;
  return BigInt(m[1]!) * 100n + BigInt((m[2] ?? "").padEnd(2, "0") || "0");
}

/** 730n → "7.30". */
export function centsToMoney(cents: bigint | number): string {
  const c = BigInt(cents);
  return `${c / 100n}.${String(c % 100n).padStart(2, "0")}`;
}
