// A mock of the account endpoints of OpenAI-family vendors on 127.0.0.1, in their real wire format:
// OpenAI's model list and billing dashboard (subscription, usage in US cents), Moonshot's
// /v1/users/me/balance, SiliconFlow's /v1/user/info (code 20000, amounts as strings) and DeepSeek's
// /user/balance (balance_infos per currency). A wrong key gets the vendor's 401 (an OpenAI error
// body that echoes the key it was given, as a careless proxy does).
//
//   const vendor = await startVendorAccountsMock({ apiKey: "sk-acct", account: { hardLimitUsd: 120 } });
//   vendor.setAccount({ deepseek: [{ currency: "USD", total_balance: "3.50" }] });
import http from "node:http";
import type { AddressInfo } from "node:net";

export type DeepSeekBalanceInfo = { currency: string; total_balance: string; granted_balance?: string; topped_up_balance?: string };

export type VendorAccount = {
  /** OpenAI: the subscription's hard limit (US$) and whether it has a payment method. */
  hardLimitUsd: number;
  hasPaymentMethod: boolean;
  /** OpenAI: usage in the asked window, in US cents. */
  totalUsageCents: number;
  /** Moonshot: available_balance (yuan on .cn). */
  moonshotAvailable: number;
  /** SiliconFlow: data.totalBalance (a string of yuan). */
  siliconflowTotal: string;
  /** SiliconFlow's own code; anything but 20000 is a failure. */
  siliconflowCode: number;
  deepseek: DeepSeekBalanceInfo[];
  /** Ids of GET /v1/models. */
  models: string[];
  /** Answer every request with this status and an OpenAI error body. */
  failStatus?: number;
  /** Answer every request with this raw 200 body. */
  rawBody?: string;
  /** Wait this long before answering anything. */
  stallMs?: number;
};

export type VendorRequest = { method: string; path: string; query: URLSearchParams; authorization: string };

export type VendorAccountsMock = {
  url: string;
  requests: VendorRequest[];
  setAccount(patch: Partial<VendorAccount>): void;
  reset(): void;
  close(): Promise<void>;
};

const DEFAULT_ACCOUNT: VendorAccount = {
  hardLimitUsd: 120,
  hasPaymentMethod: true,
  totalUsageCents: 2050,
  moonshotAvailable: 49.58894,
  siliconflowTotal: "88.88",
  siliconflowCode: 20000,
  deepseek: [{ currency: "CNY", total_balance: "110.00", granted_balance: "10.00", topped_up_balance: "100.00" }],
  models: ["gpt-4o", "gpt-4o-mini", "text-embedding-3-small"],
};

function send(res: http.ServerResponse, status: number, body: unknown) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

const openAIError = (message: string, type: string, code: string | null) => ({ error: { message, type, param: null, code } });

export async function startVendorAccountsMock(
  options: { apiKey?: string; account?: Partial<VendorAccount> } = {},
): Promise<VendorAccountsMock> {
  const requests: VendorRequest[] = [];
  let account: VendorAccount = { ...DEFAULT_ACCOUNT, ...options.account };

  const server = http.createServer((req, res) => {
    if (account.stallMs) setTimeout(() => answer(req, res), account.stallMs);
    else answer(req, res);
  });

  function answer(req: http.IncomingMessage, res: http.ServerResponse) {
    if (res.destroyed) return;
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const authorization = String(req.headers.authorization ?? "");
    requests.push({ method: req.method ?? "GET", path: url.pathname, query: url.searchParams, authorization });
    req.resume();
    if (options.apiKey !== undefined && authorization !== `Bearer ${options.apiKey}`) {
      const given = authorization.replace(/^Bearer /, "");
      return send(
        res,
        401,
        openAIError(
          `Incorrect API key provided: ${given}. You can find your API key at https://platform.openai.com/account/api-keys.`,
          "invalid_request_error",
          "invalid_api_key",
        ),
      );
    }
    if (account.failStatus)
      return send(res, account.failStatus, openAIError("The server had an error while processing your request.", "server_error", null));
    if (account.rawBody !== undefined) return send(res, 200, account.rawBody);
    if (req.method !== "GET") return send(res, 405, openAIError(`Invalid method ${req.method}`, "invalid_request_error", null));
    switch (url.pathname) {
      case "/v1/models":
        return send(res, 200, {
          object: "list",
          data: account.models.map((id) => ({ id, object: "model", created: 1715367049, owned_by: "system" })),
        });
      case "/v1/dashboard/billing/subscription":
        return send(res, 200, {
          object: "billing_subscription",
          has_payment_method: account.hasPaymentMethod,
          canceled: false,
          canceled_at: null,
          delinquent: null,
          access_until: 1893456000,
          soft_limit: 66667,
          hard_limit: 200000,
          system_hard_limit: 200000,
          soft_limit_usd: account.hardLimitUsd / 2,
          hard_limit_usd: account.hardLimitUsd,
          system_hard_limit_usd: account.hardLimitUsd,
          plan: { title: "Pay-as-you-go", id: "payg" },
          primary: true,
          account_name: "Mock Org",
          po_number: null,
          billing_email: null,
          tax_ids: null,
          billing_address: null,
          business_address: null,
        });
      case "/v1/dashboard/billing/usage": {
        const start = url.searchParams.get("start_date");
        const end = url.searchParams.get("end_date");
        if (!start || !end || !/^\d{4}-\d{2}-\d{2}$/.test(start) || !/^\d{4}-\d{2}-\d{2}$/.test(end)) {
          return send(res, 400, openAIError("Invalid date format. Please use YYYY-MM-DD.", "invalid_request_error", null));
        }
        return send(res, 200, {
          object: "list",
          daily_costs: [
            { timestamp: Date.parse(`${start}T00:00:00Z`) / 1000, line_items: [{ name: "GPT-4o", cost: account.totalUsageCents }] },
          ],
          total_usage: account.totalUsageCents,
        });
      }
      case "/v1/users/me/balance":
        return send(res, 200, {
          code: 0,
          data: { available_balance: account.moonshotAvailable, voucher_balance: 0, cash_balance: account.moonshotAvailable },
          scode: "0x0",
          status: true,
        });
      case "/v1/user/info":
        if (account.siliconflowCode !== 20000)
          return send(res, 200, { code: account.siliconflowCode, message: "Invalid token", status: false, data: null });
        return send(res, 200, {
          code: 20000,
          message: "OK",
          status: true,
          data: {
            id: "userid",
            name: "username",
            image: "",
            email: "",
            isAdmin: false,
            balance: "0.88",
            status: "normal",
            introduction: "",
            role: "",
            chargeBalance: "88.00",
            totalBalance: account.siliconflowTotal,
          },
        });
      case "/user/balance":
        return send(res, 200, { is_available: account.deepseek.length > 0, balance_infos: account.deepseek });
      default:
        return send(res, 404, openAIError(`Invalid URL (GET ${url.pathname})`, "invalid_request_error", null));
    }
  }
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setAccount(patch) {
      account = { ...account, ...patch };
    },
    reset() {
      requests.length = 0;
      account = { ...DEFAULT_ACCOUNT, ...options.account };
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
