// A loopback HTTP server for vendor mocks that replay recorded answers: it records each request
// (method, path, headers, JSON body) and answers with what the mock's `answer` returns for it.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReplayRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, any>;
}

export interface ReplayAnswer {
  status: number;
  /** A string body is sent as is: JSON text, or SSE text with `contentType: "text/event-stream"`. */
  body: string;
  contentType?: string;
}

export interface ReplayServer {
  url: string;
  requests: ReplayRequest[];
  /** Answer the next request with this instead (an error the test wants). */
  next: ReplayAnswer | null;
  reset(): void;
  close(): Promise<void>;
}

export async function startReplayServer(answer: (req: ReplayRequest) => ReplayAnswer): Promise<ReplayServer> {
  const mock: ReplayServer = {
    url: "",
    requests: [],
    next: null,
    reset() {
      mock.requests = [];
      mock.next = null;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body: Record<string, any> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      } catch {
        body = {};
      }
      const recorded = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body };
      mock.requests.push(recorded);
      const out = mock.next ?? answer(recorded);
      mock.next = null;
      res.writeHead(out.status, { "content-type": out.contentType ?? "application/json" });
      res.end(out.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  mock.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return mock;
}

export const json = (status: number, body: string): ReplayAnswer => ({ status, body });
export const sse = (body: string): ReplayAnswer => ({ status: 200, body, contentType: "text/event-stream" });
