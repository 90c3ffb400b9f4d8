// A loopback stand-in for Tencent Hunyuan's API 3.0 endpoint: it recomputes the TC3-HMAC-SHA256
// signature from the request it received (its Host, Content-Type, X-TC-Timestamp and body) and
// answers Tencent's AuthFailure.SignatureFailure when it differs; otherwise the recorded answer,
// whole or streamed (the tool-call answers when the request carries `Tools`).
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { tc3Authorization } from "@/lib/relay/providers/tencent/sign";

const FIXTURES = path.join(__dirname, "../../lib/relay/providers/tencent/__fixtures__");
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), "utf8");

export const HUNYUAN_KEY = { appId: "1300000001", secretId: "AKIDmockSecretId", secretKey: "mockSecretKey123" };

export interface HunyuanMock {
  url: string;
  requests: { headers: http.IncomingHttpHeaders; body: Record<string, unknown>; signatureOk: boolean }[];
  reset(): void;
  close(): Promise<void>;
}

export async function startHunyuanMock(): Promise<HunyuanMock> {
  const mock: HunyuanMock = {
    url: "",
    requests: [],
    reset() {
      this.requests = [];
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const payload = Buffer.concat(chunks).toString("utf8");
      const expected = tc3Authorization({
        secretId: HUNYUAN_KEY.secretId,
        secretKey: HUNYUAN_KEY.secretKey,
        service: "hunyuan",
        host: String(req.headers.host ?? ""),
        contentType: String(req.headers["content-type"] ?? ""),
        payload,
        timestamp: Number(req.headers["x-tc-timestamp"]),
      });
      const signatureOk =
        req.method === "POST" &&
        req.url === "/" &&
        req.headers["x-tc-action"] === "ChatCompletions" &&
        req.headers["x-tc-version"] === "2023-09-01" &&
        Math.abs(Number(req.headers["x-tc-timestamp"]) - Date.now() / 1000) < 300 &&
        req.headers.authorization === expected;
      const body = JSON.parse(payload || "{}") as Record<string, unknown>;
      mock.requests.push({ headers: req.headers, body, signatureOk });
      const send = (type: string, text: string) => {
        res.writeHead(200, { "content-type": type });
        res.end(text);
      };
      if (!signatureOk) return send("application/json", fixture("error-signature.json"));
      const tools = Array.isArray(body.Tools) && body.Tools.length > 0;
      if (body.Stream === true) return send("text/event-stream", fixture(tools ? "tool-call.chunks.txt" : "chat.chunks.txt"));
      send("application/json", fixture(tools ? "tool-call.json" : "chat.json"));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  mock.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return mock;
}
