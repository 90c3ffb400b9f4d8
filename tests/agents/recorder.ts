// The recording vendor: an HTTP server on 127.0.0.1 that keeps every request an agent sends
// (method, path and query, headers, body, in order) and answers it through a scripted vendor
// (tests/agents/vendors.ts) in that vendor's real wire format, so the agent carries on exactly as
// it would against the real API.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface CapturedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** What a scripted vendor answers: a JSON body, or SSE frames written as given. */
export type VendorAnswer =
  | { status: number; json: unknown; headers?: Record<string, string> }
  | { status: number; sse: string[]; headers?: Record<string, string> };

export type ScriptedVendor = (req: CapturedRequest, json: any) => VendorAnswer;

export interface Recorder {
  url: string;
  requests: CapturedRequest[];
  close(): Promise<void>;
}

export async function startRecorder(vendor: ScriptedVendor): Promise<Recorder> {
  const requests: CapturedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const captured: CapturedRequest = {
        method: req.method ?? "GET",
        path: req.url ?? "/",
        headers: { ...req.headers },
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(captured);
      let json: any = null;
      try {
        json = captured.body ? JSON.parse(captured.body) : null;
      } catch {
        json = null;
      }
      let answer: VendorAnswer;
      try {
        answer = vendor(captured, json);
      } catch (err) {
        // A script bug must show up in the agent's output, not hang it.
        answer = { status: 500, json: { error: { message: String(err) } } };
      }
      if ("sse" in answer) {
        res.writeHead(answer.status, { "content-type": "text/event-stream", "cache-control": "no-cache", ...answer.headers });
        for (const frame of answer.sse) res.write(frame);
        res.end();
      } else {
        res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
        res.end(JSON.stringify(answer.json));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
