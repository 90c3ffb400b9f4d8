// A hostile or careless upstream on 127.0.0.1 that quotes back the credentials it was sent: every
// request gets a 401 in OpenAI's error shape (which Google's and Anthropic's are read like) whose
// message holds the Authorization / x-api-key / x-goog-api-key value as received (without
// "Bearer "), plus keys of other vendors that a proxy's log line might carry. What an admin reads
// of it must show none of them.
//
//   const echo = await startCredentialEcho();
//   echo.requests[0]?.authorization  // "Bearer ya29.…"
import http from "node:http";
import type { AddressInfo } from "node:net";

/** Other vendors' secrets the echo adds to every message (none of them is any channel's key). */
export const FOREIGN_SECRETS = {
  openai: `sk-proj-${"Fo1".repeat(16)}`,
  anthropic: `sk-ant-api03-${"Zz9_".repeat(20)}`,
  aws: "AKIAIOSFODNN7EXAMPLE",
  awsTemporary: "ASIAY34FZKBOKMUTVV7A",
  googleApiKey: `AIzaSyD${"x9".repeat(16)}`,
  jwt: "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0.c2lnbmF0dXJlLXBhcnQ",
  assigned: `token=${"a1b2".repeat(8)}`,
} as const;

export interface CredentialEcho {
  url: string;
  requests: Array<{ method: string; path: string; authorization: string }>;
  reset(): void;
  close(): Promise<void>;
}

export async function startCredentialEcho(): Promise<CredentialEcho> {
  const requests: CredentialEcho["requests"] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const header = (name: string) => String(req.headers[name] ?? "");
      const sent = header("authorization") || header("x-api-key") || header("x-goog-api-key") || header("api-key");
      requests.push({ method: req.method ?? "", path: req.url ?? "", authorization: header("authorization") });
      const quoted = sent.replace(/^Bearer\s+/i, "");
      const others = Object.values(FOREIGN_SECRETS).join(", ");
      const message = `Request had invalid authentication credentials: ${quoted} was refused by this host (seen before: ${others})`;
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message, type: "invalid_request_error", code: "invalid_api_key" } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reset() {
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
