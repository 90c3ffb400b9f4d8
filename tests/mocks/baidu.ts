// A loopback stand-in for Baidu's Wenxin API: the OAuth token endpoint issues tokens for known
// `client_id`/`client_secret` pairs, and the chat/embeddings endpoints check the access_token,
// answering in Baidu's shapes (recorded fixtures), its 200-with-error_code included.
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

const FIXTURES = path.join(__dirname, "../../lib/relay/providers/baidu/__fixtures__");
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), "utf8");

export interface BaiduRequest {
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown> | null;
}

export interface BaiduMock {
  url: string;
  /** Token calls received (each issues a new token). */
  tokenCalls: number;
  /** The client_id of each token call. */
  tokenClients: string[];
  requests: BaiduRequest[];
  /** Tokens the model endpoints accept; revoke one to make Baidu answer error 110. */
  validTokens: Set<string>;
  /** Milliseconds the token endpoint waits before answering (to overlap concurrent fetches). */
  tokenDelayMs: number;
  /** Counters and the request log cleared; issued tokens stay valid. */
  reset(): void;
  /** Every issued token becomes invalid (Baidu's error 110 from then on). */
  revokeAll(): void;
  close(): Promise<void>;
}

export const BAIDU_CLIENT = { id: "ak-test", secret: "sk-test" };

export async function startBaiduMock(): Promise<BaiduMock> {
  let issued = 0;
  const mock: BaiduMock = {
    url: "",
    tokenCalls: 0,
    tokenClients: [],
    requests: [],
    validTokens: new Set(),
    tokenDelayMs: 0,
    reset() {
      this.tokenCalls = 0;
      this.tokenClients = [];
      this.requests = [];
      this.tokenDelayMs = 0;
    },
    revokeAll() {
      this.validTokens.clear();
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  const json = (res: http.ServerResponse, body: string) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(body);
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://x");
      const raw = Buffer.concat(chunks).toString("utf8");
      if (url.pathname === "/oauth/2.0/token") {
        mock.tokenCalls++;
        mock.tokenClients.push(url.searchParams.get("client_id") ?? "");
        const ok =
          req.method === "POST" &&
          url.searchParams.get("grant_type") === "client_credentials" &&
          url.searchParams.get("client_id") === BAIDU_CLIENT.id &&
          url.searchParams.get("client_secret") === BAIDU_CLIENT.secret;
        setTimeout(() => {
          if (!ok) {
            res.writeHead(401, { "content-type": "application/json" });
            res.end(fixture("oauth-error.json"));
            return;
          }
          const token = `24.mock${++issued}.2592000.1700000000.282335-1`;
          mock.validTokens.add(token);
          json(
            res,
            JSON.stringify({
              access_token: token,
              expires_in: 2592000,
              scope: "ai_custom_wenxinworkshop",
              session_key: "x",
              session_secret: "y",
            }),
          );
        }, mock.tokenDelayMs);
        return;
      }
      let body: Record<string, unknown> | null = null;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        body = null;
      }
      mock.requests.push({ path: url.pathname, query: url.searchParams, body });
      if (!mock.validTokens.has(url.searchParams.get("access_token") ?? "")) return json(res, fixture("error-token-invalid.json"));
      if (url.pathname.startsWith("/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/")) return json(res, fixture("embeddings.json"));
      if (!url.pathname.startsWith("/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/")) {
        res.writeHead(404, { "content-type": "application/json" });
        return res.end(JSON.stringify({ error_code: 3, error_msg: "Unsupported openapi method" }));
      }
      const functions = Array.isArray(body?.functions) && body.functions.length > 0;
      if (body?.stream === true) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        return res.end(fixture(functions ? "function-call.chunks.txt" : "chat.chunks.txt"));
      }
      json(res, fixture(functions ? "function-call.json" : "chat.json"));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  mock.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return mock;
}
