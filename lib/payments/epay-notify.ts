// The EPay gateway's payment notification (`GET` and `POST /api/user/epay/notify`, new-api's path,
// inventory §4.3). The gateway calls it, unauthenticated, until it reads the plain text `success`;
// anything else (`fail`) makes it try again later. So: `success` once the order is paid here (now
// or before), or for a genuine notice that reports no payment; `fail` for everything that is not
// a genuine payment of one of our orders, which then credits nothing and is logged.
//
// A forger has the URL and can send anything: every parameter is checked before the order is
// touched, and the one credit path (creditOrder) moves an order to success at most once.
import { readBodyWithin } from "@/lib/net/body";
import { getOptions } from "@/lib/options";
import { isOnlineTopUpEnabled } from "@/lib/payments/amount";
import { EPAY_TYPE, type EpayMethod, epayVerify, moneyToCents } from "@/lib/payments/epay";
import { creditOrder, logPaymentRefusal } from "@/lib/payments/orders";
import { componentLogger } from "@/lib/log";

const log = componentLogger("payments");

/** A notification is a dozen short fields (well under 2 KB); a larger body is not one. */
export const EPAY_NOTIFY_MAX_BYTES = 16 * 1024;

/** Our order numbers are ~30 characters, the gateways' own ~20–40: anything longer is not a notice. */
const MAX_TRADE_NO = 128;

export type EpayReply = "success" | "fail";

type Params = Record<string, string>;
type Read = { ok: true; params: Params } | { ok: false; reason: string };

const FORM_TYPES = new Set(["application/x-www-form-urlencoded", "multipart/form-data"]);

/** The pairs as one record; a name given twice makes the notice ambiguous, so it is refused. */
function toParams(pairs: Iterable<[string, FormDataEntryValue]>): Read {
  const params: Params = Object.create(null);
  for (const [name, value] of pairs) {
    if (typeof value !== "string") return { ok: false, reason: `parameter ${name} is a file` };
    if (Object.hasOwn(params, name)) return { ok: false, reason: `parameter ${name} given twice` };
    params[name] = value;
  }
  return { ok: true, params };
}

/**
 * The notice's parameters: a GET's query, or a POST's form body (urlencoded or multipart, at most
 * EPAY_NOTIFY_MAX_BYTES). A POST that also carries a query is refused rather than merged, so no
 * field can be slipped in beside the signed ones.
 */
export async function readEpayNotice(req: Request): Promise<Read> {
  const url = new URL(req.url);
  if (req.method === "GET") return toParams(url.searchParams);
  if (req.method !== "POST") return { ok: false, reason: `method ${req.method}` };
  if (url.search !== "") return { ok: false, reason: "a POST with a query string" };
  const contentType = req.headers.get("content-type") ?? "";
  const mediaType = contentType.split(";", 1)[0]!.trim().toLowerCase();
  if (!FORM_TYPES.has(mediaType)) return { ok: false, reason: `content type ${mediaType || "(none)"}` };
  const bytes = await readBodyWithin(req, EPAY_NOTIFY_MAX_BYTES);
  if (bytes === null) return { ok: false, reason: `body over ${EPAY_NOTIFY_MAX_BYTES} bytes` };
  if (mediaType === "application/x-www-form-urlencoded") return toParams(new URLSearchParams(new TextDecoder().decode(bytes)));
  try {
    const form = await new Response(Buffer.from(bytes), { headers: { "content-type": contentType } }).formData();
    return toParams(form.entries());
  } catch {
    return { ok: false, reason: "malformed multipart body" };
  }
}

const EPAY_METHODS = Object.keys(EPAY_TYPE) as EpayMethod[];
const METHOD_OF_TYPE = new Map<string, EpayMethod>(Object.entries(EPAY_TYPE).map(([method, type]) => [type, method as EpayMethod]));

/** What the refusal log line carries: the notice's own facts, never the signature or our key. */
const facts = (p: Params) => ({
  pid: p.pid,
  out_trade_no: p.out_trade_no,
  trade_no: p.trade_no,
  type: p.type,
  money: p.money,
  trade_status: p.trade_status,
});

function refuse(reason: string, p: Params = {}): EpayReply {
  logPaymentRefusal("epay", reason, facts(p));
  return "fail";
}

/** Checks a notice and credits its order once when it reports a payment (see the file's head). */
export async function handleEpayNotice(p: Params): Promise<EpayReply> {
  const o = await getOptions();
  if (!isOnlineTopUpEnabled(o)) return refuse("online top-up is not configured", p);
  if (p.sign_type !== undefined && p.sign_type.toUpperCase() !== "MD5") return refuse(`sign_type ${p.sign_type}`, p);
  if (!epayVerify(p, o.EpayKey)) return refuse("bad signature", p);
  if (p.pid !== o.EpayId) return refuse("pid is not ours", p);
  if (p.trade_status !== "TRADE_SUCCESS") {
    // Genuine, but not a payment (e.g. WAIT_BUYER_PAY): acknowledged so the gateway stops.
    logPaymentRefusal("epay", `trade_status ${p.trade_status ?? "(none)"}: nothing to credit`, facts(p));
    return "success";
  }
  const method = METHOD_OF_TYPE.get(p.type ?? "");
  if (!method) return refuse(`type ${p.type ?? "(none)"}`, p);
  const paid = moneyToCents(p.money);
  if (paid === null) return refuse("money is not an amount", p);
  const orderNo = p.out_trade_no ?? "";
  const gatewayRef = p.trade_no ?? "";
  if (!orderNo || orderNo.length > MAX_TRADE_NO) return refuse("out_trade_no missing or too long", p);
  if (!gatewayRef || gatewayRef.length > MAX_TRADE_NO) return refuse("trade_no missing or too long", p);

  // Either EPay method completes an EPay order (some gateways' checkout lets the payer switch
  // between 支付宝 and 微信): the signature, the order and the amount are the proof; a Stripe order
  // is never completed by an EPay notice.
  const result = await creditOrder(orderNo, { paid_cents: paid, methods: EPAY_METHODS, gateway_ref: gatewayRef });
  switch (result.outcome) {
    case "credited":
      if (result.order.payment_method !== method) {
        logPaymentRefusal("epay", `paid with ${p.type}, ordered as ${result.order.payment_method}: credited`, facts(p));
      }
      return "success";
    case "already":
      // A replay, or a duplicate that lost the race: paid once, acknowledged again.
      if (result.order.gateway_ref && result.order.gateway_ref !== gatewayRef) {
        logPaymentRefusal("epay", "already paid under another gateway trade_no", { ...facts(p), paid_ref: result.order.gateway_ref });
      }
      return "success";
    case "unknown":
      return refuse("unknown order", p);
    case "mismatch":
      return refuse(`does not match the order: ${result.reason}`, p);
    case "user_gone":
      return refuse("the order's user no longer exists", p);
  }
}

const reply = (text: EpayReply, status = 200) =>
  new Response(text, { status, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } });

/** The route: the plain-text reply the gateway reads (never the console's JSON envelope). */
export async function epayNotifyResponse(req: Request): Promise<Response> {
  try {
    const read = await readEpayNotice(req);
    if (!read.ok) return reply(refuse(read.reason));
    return reply(await handleEpayNotice(read.params));
  } catch (error) {
    // The database is down or similar: the gateway tries again later.
    log.error({ err: error, gateway: "epay" }, "notify failed");
    return reply("fail", 500);
  }
}
