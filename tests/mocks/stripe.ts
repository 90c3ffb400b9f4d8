// Stripe's API on 127.0.0.1, as the official `stripe` package talks to it (point
// STRIPE_API_BASE_URL here): form-encoded requests with `Authorization: Bearer <secret key>`,
// JSON objects back, errors as `{ error: { type, message, code, param } }` with Stripe's status
// codes. It serves what Qiao uses:
//   GET  /v1/prices/:id           a Price the test added (addPrice)
//   POST /v1/checkout/sessions    a Checkout Session (cs_test_…) whose url is this mock's own page;
//                                 the same Idempotency-Key gives the same session back
//   GET  /pay/:id                 the checkout page: order, amount, currency and a "Pay" button
//   POST /pay/:id                 "Pay": sends checkout.session.completed, signed as Stripe signs
//                                 (`Stripe-Signature: t=…,v1=HMAC-SHA256(whsec, "{t}.{body}")`),
//                                 to the webhook URL the test set, then redirects to success_url
// and a programmatic side for API tests: `send` any of the three checkout events for a session,
// with overrides (amount_total, currency, payment_status…) or a bad signature.
//
//   const stripe = await startMockStripe({ webhookUrl: "http://127.0.0.1:3000/api/stripe/webhook" });
//   stripe.addPrice("price_usd", "usd");
//   await stripe.send("checkout.session.completed", sessionId, { amount_total: 1 });
import { createHmac, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export type CheckoutEventType = "checkout.session.completed" | "checkout.session.async_payment_succeeded" | "checkout.session.expired";

type Json = Record<string, unknown>;

export type RecordedRequest = { method: string; path: string; authorization: string; idempotencyKey: string; params: Json };

export type Delivery = { type: string; status: number; body: string };

export type SignedEvent = { payload: string; header: string };

export type MockStripe = {
  url: string;
  /** The secret key the mock accepts (StripeApiSecret). */
  secretKey: string;
  /** The webhook signing secret it signs with (StripeWebhookSecret). */
  webhookSecret: string;
  /** Where events go; settable. */
  webhookUrl: string;
  addPrice(id: string, currency: string, product?: string): void;
  /** Every API request, in order, with its form body decoded. */
  requests: RecordedRequest[];
  sessions: Map<string, Json>;
  /** The event Stripe would send for `sessionId`, signed (`secret` and `timestamp` override the real ones). */
  signedEvent(type: CheckoutEventType, sessionId: string, overrides?: Json, sign?: { secret?: string; timestamp?: number }): SignedEvent;
  /** POSTs a signed delivery to webhookUrl (`header: null` sends none). */
  deliver(event: { payload: string; header: string | null }): Promise<Delivery>;
  /** signedEvent + deliver. */
  send(type: CheckoutEventType, sessionId: string, overrides?: Json, sign?: { secret?: string; timestamp?: number }): Promise<Delivery>;
  /** Every delivery made, in order (the checkout page's and send's). */
  deliveries: Delivery[];
  /** While set, session creation is refused with this message (a 400 invalid_request_error). */
  refuseSessions: string | null;
  close(): Promise<void>;
};

/** `Stripe-Signature` for `payload` as Stripe computes it. */
export function stripeSignature(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const v1 = createHmac("sha256", secret).update(`${timestamp}.${payload}`, "utf8").digest("hex");
  return `t=${timestamp},v1=${v1}`;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString("hex")}`;

/** `a[b][0][c]=x` form fields (Stripe's encoding of nested parameters) as nested objects and arrays. */
export function decodeStripeForm(body: string): Json {
  const root: Json = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = [...key.matchAll(/([^[\]]+)|\[([^\]]*)\]/g)].map((m) => m[1] ?? m[2] ?? "");
    let node: Record<string, unknown> = root;
    path.forEach((segment, i) => {
      if (i === path.length - 1) node[segment] = value;
      else node = (node[segment] ??= /^\d+$/.test(path[i + 1]!) ? [] : {}) as Record<string, unknown>;
    });
  }
  return root;
}

function stripeError(res: http.ServerResponse, status: number, type: string, message: string, extra: Json = {}) {
  send(res, status, { error: { type, message, ...extra } });
}

function send(res: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), "request-id": id("req") });
  res.end(text);
}

const html = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function checkoutPage(session: Json): string {
  const amount = Number(session.amount_total);
  const money = `${Math.trunc(amount / 100)}.${String(amount % 100).padStart(2, "0")} ${String(session.currency).toUpperCase()}`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Stripe Checkout (mock)</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; max-width: 420px; margin: 40px auto">
<h1>Stripe Checkout (mock)</h1>
<p>Order <span data-testid="reference">${html(String(session.client_reference_id ?? ""))}</span></p>
<p>Amount <strong data-testid="amount">${html(money)}</strong></p>
<p>Email ${html(String(session.customer_email ?? ""))}</p>
<form method="post"><button type="submit">Pay</button></form>
<p><a href="${html(String(session.cancel_url ?? ""))}">Cancel</a></p>
</body></html>`;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => (data += chunk));
    req.on("end", () => resolve(data));
    req.on("error", reject);
  });
}

/** A Checkout Session as Stripe answers `POST /v1/checkout/sessions`, or the reason it would refuse. */
function newSession(params: Json, url: string, prices: Map<string, Json>): Json | string {
  if (params.mode !== "payment") return "mode: only payment is supported by this mock";
  if (typeof params.success_url !== "string") return "success_url is required";
  const items = params.line_items as Json[] | undefined;
  if (!Array.isArray(items) || items.length !== 1) return "line_items: exactly one item expected by this mock";
  const item = items[0]!;
  const quantity = Number(item.quantity ?? 1);
  let currency: string;
  let unit: number;
  const priceData = item.price_data as Json | undefined;
  if (priceData) {
    currency = String(priceData.currency ?? "");
    unit = Number(priceData.unit_amount);
    if (!currency || !priceData.product) return "price_data needs currency and product";
    if (!Number.isSafeInteger(unit) || unit < 0) return "Invalid integer: unit_amount";
  } else {
    const price = prices.get(String(item.price));
    if (!price) return `No such price: '${String(item.price)}'`;
    currency = String(price.currency);
    unit = Number(price.unit_amount);
  }
  const sessionId = id("cs_test");
  return {
    id: sessionId,
    object: "checkout.session",
    mode: "payment",
    status: "open",
    payment_status: "unpaid",
    amount_subtotal: unit * quantity,
    amount_total: unit * quantity,
    currency,
    client_reference_id: params.client_reference_id ?? null,
    customer_email: params.customer_email ?? null,
    metadata: params.metadata ?? {},
    success_url: String(params.success_url).replace("{CHECKOUT_SESSION_ID}", sessionId),
    cancel_url: params.cancel_url ?? null,
    payment_intent: null,
    livemode: false,
    created: Math.floor(Date.now() / 1000),
    expires_at: Math.floor(Date.now() / 1000) + 24 * 3600,
    url: `${url}/pay/${sessionId}`,
  };
}

export async function startMockStripe(options: { webhookUrl?: string; port?: number } = {}): Promise<MockStripe> {
  const secretKey = `sk_test_${randomBytes(12).toString("hex")}`;
  const webhookSecret = `whsec_${randomBytes(16).toString("base64url")}`;
  const prices = new Map<string, Json>();
  const sessions = new Map<string, Json>();
  const byIdempotencyKey = new Map<string, Json>();
  const requests: RecordedRequest[] = [];
  const deliveries: Delivery[] = [];
  let url = "";

  const signedEvent: MockStripe["signedEvent"] = (type, sessionId, overrides = {}, sign = {}) => {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`mock Stripe: no session ${sessionId}`);
    const state =
      type === "checkout.session.expired"
        ? { status: "expired", payment_status: "unpaid", url: null }
        : { status: "complete", payment_status: "paid", payment_intent: id("pi"), url: null };
    const event = {
      id: id("evt"),
      object: "event",
      api_version: "2026-10-28.endive",
      created: Math.floor(Date.now() / 1000),
      data: { object: { ...session, ...state, ...overrides } },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
    const payload = JSON.stringify(event, null, 2);
    return { payload, header: stripeSignature(payload, sign.secret ?? webhookSecret, sign.timestamp) };
  };

  const mock: MockStripe = {
    url: "",
    secretKey,
    webhookSecret,
    webhookUrl: options.webhookUrl ?? "",
    addPrice(priceId, currency, product = id("prod")) {
      prices.set(priceId, {
        id: priceId,
        object: "price",
        active: true,
        currency,
        product,
        type: "one_time",
        unit_amount: 100,
        unit_amount_decimal: "100",
        livemode: false,
      });
    },
    requests,
    sessions,
    signedEvent,
    async deliver(event) {
      const headers: Record<string, string> = {
        "content-type": "application/json; charset=utf-8",
        "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
      };
      if (event.header !== null) headers["stripe-signature"] = event.header;
      const res = await fetch(mock.webhookUrl, { method: "POST", headers, body: event.payload });
      const type = String((JSON.parse(event.payload) as Json).type);
      const delivery = { type, status: res.status, body: await res.text() };
      deliveries.push(delivery);
      return delivery;
    },
    send(type, sessionId, overrides, sign) {
      return mock.deliver(signedEvent(type, sessionId, overrides, sign));
    },
    deliveries,
    refuseSessions: null,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // The package keeps its connections alive.
        server.closeAllConnections();
      }),
  };

  const server = http.createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", "http://mock").pathname;
    const body = await readBody(req);
    const page = /^\/pay\/([\w]+)$/.exec(path);
    if (page) {
      const session = sessions.get(page[1]!);
      if (!session) {
        res.writeHead(404, { "content-type": "text/plain" }).end("no such checkout session");
        return;
      }
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(checkoutPage(session));
        return;
      }
      const delivery = await mock.send("checkout.session.completed", page[1]!).catch((e: Error) => ({ status: 0, body: e.message }));
      if (delivery.status !== 200) {
        res.writeHead(502, { "content-type": "text/plain" }).end(`webhook failed: ${delivery.status} ${delivery.body}`);
        return;
      }
      res.writeHead(303, { location: String(session.success_url) }).end();
      return;
    }
    const authorization = req.headers.authorization ?? "";
    const idempotencyKey = String(req.headers["idempotency-key"] ?? "");
    const params = req.method === "GET" ? decodeStripeForm(new URL(req.url ?? "/", "http://mock").search.slice(1)) : decodeStripeForm(body);
    requests.push({ method: req.method ?? "", path, authorization, idempotencyKey, params });
    if (authorization !== `Bearer ${secretKey}`) {
      const given = authorization.replace(/^Bearer /, "");
      stripeError(res, 401, "invalid_request_error", `Invalid API Key provided: ${given.slice(0, 8)}****${given.slice(-4)}`);
      return;
    }
    const price = /^\/v1\/prices\/([^/]+)$/.exec(path);
    if (req.method === "GET" && price) {
      const found = prices.get(decodeURIComponent(price[1]!));
      if (found) send(res, 200, found);
      else stripeError(res, 404, "invalid_request_error", `No such price: '${price[1]}'`, { code: "resource_missing", param: "id" });
      return;
    }
    if (req.method === "POST" && path === "/v1/checkout/sessions") {
      const again = idempotencyKey ? byIdempotencyKey.get(idempotencyKey) : undefined;
      if (again) {
        send(res, 200, again);
        return;
      }
      const session = mock.refuseSessions ?? newSession(params, url, prices);
      if (typeof session === "string") {
        stripeError(res, 400, "invalid_request_error", session);
        return;
      }
      sessions.set(String(session.id), session);
      if (idempotencyKey) byIdempotencyKey.set(idempotencyKey, session);
      send(res, 200, session);
      return;
    }
    stripeError(res, 404, "invalid_request_error", `Unrecognized request URL (${req.method}: ${path}).`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", resolve);
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  mock.url = url;
  return mock;
}
