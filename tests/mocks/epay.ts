// An EPay (易支付) gateway on 127.0.0.1, speaking the submit.php protocol every EPay clone speaks
// (inventory §4.3). Its MD5 signing is written here apart from the product's (lib/payments/epay.ts),
// so a signature the product accepts is the gateway's, not ours.
//
// The browser's side: `/submit.php` takes the merchant's form (POST, urlencoded, or GET), checks
// pid and signature with the merchant key the test gave it (a bad one gets an error page), and
// shows a cashier page (title 模拟易支付: the order number, money, type) with a 确认付款 button.
// Pressing it makes the gateway call the order's notify_url by GET with the real notice (pid, its
// own trade_no, out_trade_no, type, name, money, trade_status=TRADE_SUCCESS, sign, sign_type=MD5),
// remember the reply, then redirect the browser to return_url with the same parameters appended.
//
// The tests' side: `submit` hands it a form (what POST /api/user/pay answered) as the browser
// would; `notice` builds the signed notice of an order, with overrides (money, type, status, a bad
// sign…); `notify` delivers it (GET or POST) and records the reply. `deliver` replaces the HTTP
// call, so API tests can hand the notice to the route handler itself.
//
//   const gw = await startMockEpay({ pid: "1001", key: "merchant-key" });
//   await gw.submit(form.data);                 // the order is now known to the gateway
//   await gw.notify(form.data.out_trade_no);    // → { status: 200, text: "success" }
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/** The merchant signature: MD5 over the sorted non-empty `k=v` pairs (sign and sign_type left out) with the key appended. */
export function epayMerchantSign(params: Record<string, string>, key: string): string {
  const text = Object.keys(params)
    .filter((k) => k !== "sign" && k !== "sign_type" && params[k] !== "")
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join("&");
  return createHash("md5").update(`${text}${key}`, "utf8").digest("hex");
}

/** An order the gateway accepted from a merchant form. */
export type EpayOrder = {
  /** The gateway's own number (the notice's trade_no). */
  trade_no: string;
  out_trade_no: string;
  type: string;
  name: string;
  money: string;
  notify_url: string;
  return_url: string;
  /** The form as it was received. */
  form: Record<string, string>;
};

export type NoticeOverrides = {
  money?: string;
  type?: string;
  trade_status?: string;
  pid?: string;
  out_trade_no?: string;
  trade_no?: string;
  /** Sign with this key instead of the merchant's. */
  key?: string;
  /** A signature that is not the notice's (kept 32 hex digits, so only its value is wrong). */
  badSign?: boolean;
  /** More parameters, signed with the rest. */
  extra?: Record<string, string>;
};

export type NotifyDelivery = { method: "GET" | "POST"; url: string; params: Record<string, string> };
export type NotifyReply = { status: number; text: string };
export type Deliver = (url: URL, method: "GET" | "POST", body: URLSearchParams | null) => Promise<NotifyReply>;

export type MockEpay = {
  /** The PayAddress to configure (submit.php lives under it). */
  url: string;
  /** Every form received (accepted or not), in order. */
  submissions: Array<{ method: string; form: Record<string, string>; accepted: boolean; error?: string }>;
  /** Orders accepted, by out_trade_no. */
  orders: Map<string, EpayOrder>;
  /** Every notice sent and the merchant's reply. */
  notifications: Array<NotifyDelivery & NotifyReply>;
  /** Hands the gateway a merchant form as a browser would (POST /submit.php); answers the accepted order. */
  submit(form: Record<string, string>): Promise<EpayOrder>;
  /** The signed notice of order `outTradeNo` (as accepted), changed by `overrides`. */
  notice(outTradeNo: string, overrides?: NoticeOverrides): Record<string, string>;
  /** Sends that notice to the order's notify_url and records the reply. */
  notify(outTradeNo: string, overrides?: NoticeOverrides, method?: "GET" | "POST"): Promise<NotifyReply>;
  close(): Promise<void>;
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(res: http.ServerResponse, status: number, title: string, body: string) {
  const html = `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>
<style>body{font-family:sans-serif;max-width:420px;margin:40px auto;padding:0 16px}dt{color:#666}dd{margin:0 0 8px}button{font-size:16px;padding:8px 24px}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  res.end(html);
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const REQUIRED = ["pid", "type", "out_trade_no", "notify_url", "return_url", "name", "money", "sign"];

const defaultDeliver: Deliver = async (url, method, body) => {
  const res = await fetch(url, method === "GET" ? { method } : { method, body });
  return { status: res.status, text: await res.text() };
};

export async function startMockEpay(options: { pid: string; key: string; deliver?: Deliver }): Promise<MockEpay> {
  const orders = new Map<string, EpayOrder>();
  const byTradeNo = new Map<string, EpayOrder>();
  const submissions: MockEpay["submissions"] = [];
  const notifications: MockEpay["notifications"] = [];
  const deliver = options.deliver ?? defaultDeliver;
  let serial = 0;

  /** Checks a merchant form; answers the order or why it was refused. */
  function accept(method: string, form: Record<string, string>): EpayOrder | string {
    const missing = REQUIRED.find((k) => !form[k]);
    let error: string | undefined;
    if (missing) error = `缺少参数 ${missing}`;
    else if (form.pid !== options.pid) error = "商户不存在";
    else if (epayMerchantSign(form, options.key) !== form.sign) error = "签名校验失败";
    else if (form.type !== "alipay" && form.type !== "wxpay") error = "支付方式不存在";
    else if (!/^\d+(\.\d{1,2})?$/.test(form.money!)) error = "金额不正确";
    submissions.push({ method, form, accepted: !error, error });
    if (error) return error;
    const known = orders.get(form.out_trade_no!);
    if (known) return known;
    serial++;
    const order: EpayOrder = {
      trade_no: `2026${String(Date.now()).slice(-9)}${String(serial).padStart(4, "0")}`,
      out_trade_no: form.out_trade_no!,
      type: form.type!,
      name: form.name!,
      money: form.money!,
      notify_url: form.notify_url!,
      return_url: form.return_url!,
      form,
    };
    orders.set(order.out_trade_no, order);
    byTradeNo.set(order.trade_no, order);
    return order;
  }

  function notice(outTradeNo: string, o: NoticeOverrides = {}): Record<string, string> {
    const order = orders.get(outTradeNo);
    if (!order) throw new Error(`the mock EPay gateway has no order ${outTradeNo}`);
    const params: Record<string, string> = {
      pid: o.pid ?? options.pid,
      trade_no: o.trade_no ?? order.trade_no,
      out_trade_no: o.out_trade_no ?? order.out_trade_no,
      type: o.type ?? order.type,
      name: order.name,
      money: o.money ?? order.money,
      trade_status: o.trade_status ?? "TRADE_SUCCESS",
      ...o.extra,
    };
    const sign = epayMerchantSign(params, o.key ?? options.key);
    params.sign = o.badSign ? (sign[0] === "0" ? "1" : "0") + sign.slice(1) : sign;
    params.sign_type = "MD5";
    return params;
  }

  async function notify(outTradeNo: string, overrides: NoticeOverrides = {}, method: "GET" | "POST" = "GET"): Promise<NotifyReply> {
    const params = notice(outTradeNo, overrides);
    const url = new URL(orders.get(outTradeNo)!.notify_url);
    let body: URLSearchParams | null = null;
    if (method === "GET") for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    else body = new URLSearchParams(params);
    const reply = await deliver(url, method, body).catch((e: Error) => ({ status: 0, text: `unreachable: ${e.message}` }));
    notifications.push({ method, url: url.toString(), params, ...reply });
    return reply;
  }

  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://mock");
      if (url.pathname === "/submit.php" && (req.method === "GET" || req.method === "POST")) {
        const form = Object.fromEntries(req.method === "GET" ? url.searchParams : new URLSearchParams(await readBody(req)));
        const order = accept(req.method, form);
        if (typeof order === "string") {
          page(res, 400, "支付失败", `<p role="alert">${escapeHtml(order)}</p>`);
          return;
        }
        const typeName = order.type === "alipay" ? "支付宝" : "微信支付";
        page(
          res,
          200,
          "模拟易支付",
          `<dl><dt>订单号</dt><dd data-testid="out-trade-no">${escapeHtml(order.out_trade_no)}</dd>
<dt>商品名称</dt><dd>${escapeHtml(order.name)}</dd>
<dt>支付金额</dt><dd data-testid="money">¥${escapeHtml(order.money)}</dd>
<dt>支付方式</dt><dd data-testid="type">${typeName}</dd></dl>
<form method="post" action="/pay/confirm"><input type="hidden" name="trade_no" value="${escapeHtml(order.trade_no)}"><button type="submit">确认付款</button></form>`,
        );
        return;
      }
      if (url.pathname === "/pay/confirm" && req.method === "POST") {
        const order = byTradeNo.get(new URLSearchParams(await readBody(req)).get("trade_no") ?? "");
        if (!order) {
          page(res, 404, "支付失败", `<p role="alert">订单不存在</p>`);
          return;
        }
        await notify(order.out_trade_no);
        const back = new URL(order.return_url);
        for (const [k, v] of Object.entries(notice(order.out_trade_no))) back.searchParams.set(k, v);
        res.writeHead(302, { location: back.toString() });
        res.end();
        return;
      }
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" }).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;

  return {
    url: base,
    submissions,
    orders,
    notifications,
    async submit(form) {
      const res = await fetch(`${base}/submit.php`, { method: "POST", body: new URLSearchParams(form) });
      const html = await res.text();
      if (res.status !== 200) throw new Error(`the mock EPay gateway refused the form: ${html}`);
      return orders.get(form.out_trade_no!)!;
    },
    notice,
    notify,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
