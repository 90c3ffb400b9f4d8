// A mock Bedrock runtime on 127.0.0.1: `POST /model/{modelId}/invoke` and
// `/invoke-with-response-stream`, SigV4-authenticated. It checks the Authorization header's shape
// (AWS4-HMAC-SHA256, credential scope …/{region}/bedrock/aws4_request, signed headers including
// host and x-amz-date) and that the signature covers the request as received, answers Claude's
// `message` JSON, and streams AWS event-stream frames (`:event-type chunk`,
// `{"bytes": base64(event)}`, CRC32s) or an exception frame. Errors are Bedrock's
// `{"message": …}` with `x-amzn-ErrorType`.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { encodeEventMessage } from "@/lib/relay/providers/bedrock/eventstream";
import { signV4 } from "@/lib/relay/providers/bedrock/sigv4";
import { type ClaudeBehaviour, type ClaudeRecordedRequest, claudeMessage, claudeStreamEvents } from "./anthropic";

export interface BedrockRecordedRequest extends ClaudeRecordedRequest {
  modelId: string;
  action: "invoke" | "invoke-with-response-stream";
}

export interface BedrockBehaviour extends ClaudeBehaviour {
  /** Stream: an exception frame of this type after the first event. */
  exceptionMidStream?: string;
}

export interface BedrockMock {
  url: string;
  requests: BedrockRecordedRequest[];
  setBehaviour(b: BedrockBehaviour | null): void;
  reset(): void;
  close(): Promise<void>;
}

const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([a-z0-9-]+)\/bedrock\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/;

const ERRORS: Record<number, { type: string; message: string }> = {
  400: { type: "ValidationException", message: "Malformed input request, please reformat your input and try again." },
  403: { type: "UnrecognizedClientException", message: "The security token included in the request is invalid." },
  429: { type: "ThrottlingException", message: "Too many requests, please wait before trying again." },
  500: { type: "InternalServerException", message: "Internal server error" },
  503: { type: "ServiceUnavailableException", message: "Bedrock is unable to process your request." },
};

export async function startBedrockMock(opts: { accessKeyId: string; secretAccessKey: string; region: string }): Promise<BedrockMock> {
  const requests: BedrockRecordedRequest[] = [];
  let behaviour: BedrockBehaviour = {};
  let failuresLeft = Number.POSITIVE_INFINITY;
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const bytes = Buffer.concat(chunks);
    const body = bytes.toString("utf8");
    let json: Record<string, any> = {};
    try {
      json = JSON.parse(body);
    } catch {
      // refused below
    }
    const rawPath = (req.url ?? "").split("?")[0]!;
    const m = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/.exec(rawPath);
    const fail = (status: number) => {
      const e = ERRORS[status] ?? { type: "InternalServerException", message: `error ${status}` };
      res.writeHead(status, {
        "content-type": "application/json",
        "x-amzn-errortype": `${e.type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
      });
      res.end(JSON.stringify({ message: e.message }));
    };
    requests.push({
      path: rawPath,
      headers: req.headers,
      body,
      json,
      modelId: m ? decodeURIComponent(m[1]!) : "",
      action: (m?.[2] ?? "invoke") as BedrockRecordedRequest["action"],
    });
    if (req.method !== "POST" || !m) return fail(400);
    const auth = AUTH.exec(String(req.headers.authorization ?? ""));
    const date = String(req.headers["x-amz-date"] ?? "");
    if (!auth || auth[1] !== opts.accessKeyId || auth[3] !== opts.region || !date.startsWith(auth[2]!)) return fail(403);
    const signedNames = auth[4]!.split(";");
    if (!signedNames.includes("host") || !signedNames.includes("x-amz-date")) return fail(403);
    // Recompute the signature over the request as it arrived (host with port, body bytes).
    const headers: Record<string, string> = {};
    for (const n of signedNames) if (n !== "host" && n !== "x-amz-date") headers[n] = String(req.headers[n] ?? "");
    const expected = signV4(
      {
        method: "POST",
        url: new URL(`http://${req.headers.host}${req.url}`),
        headers,
        body: bytes,
        region: opts.region,
        service: "bedrock",
        date: new Date(date.replace(/(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z/, "$1-$2-$3T$4:$5:$6Z")),
      },
      { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey },
    );
    if (expected.signature !== auth[5]) {
      res.writeHead(403, { "content-type": "application/json", "x-amzn-errortype": "InvalidSignatureException" });
      res.end(JSON.stringify({ message: "The request signature we calculated does not match the signature you provided." }));
      return;
    }
    if (json.anthropic_version !== "bedrock-2023-05-31" || !Array.isArray(json.messages) || "model" in json || "stream" in json)
      return fail(400);
    if (behaviour.failStatus && failuresLeft > 0) {
      failuresLeft--;
      return fail(behaviour.failStatus);
    }
    const claudeReq = { ...json, model: "claude-3-5-sonnet-20241022" };
    if (m[2] === "invoke") {
      res.writeHead(200, { "content-type": "application/json", "x-amzn-bedrock-input-token-count": "12" });
      res.end(JSON.stringify(claudeMessage(claudeReq, behaviour)));
      return;
    }
    res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream", "x-amzn-bedrock-content-type": "application/json" });
    const events = claudeStreamEvents(claudeReq, behaviour);
    const frames: Buffer[] = [];
    events.forEach((e, i) => {
      const payload = { bytes: Buffer.from(JSON.stringify(e)).toString("base64"), p: "abcdefghijklmnopqrstuvwxyz".slice(0, (i % 20) + 1) };
      frames.push(
        encodeEventMessage(
          { ":event-type": "chunk", ":content-type": "application/json", ":message-type": "event" },
          JSON.stringify(payload),
        ),
      );
      if (i === 0 && behaviour.exceptionMidStream) {
        frames.push(
          encodeEventMessage(
            { ":exception-type": behaviour.exceptionMidStream, ":content-type": "application/json", ":message-type": "exception" },
            JSON.stringify({ message: "Too many requests, please wait before trying again." }),
          ),
        );
      }
    });
    // Written in slices that cut frames anywhere, as a network would.
    const all = Buffer.concat(behaviour.exceptionMidStream ? frames.slice(0, 2) : frames);
    for (let i = 0; i < all.length; i += 37) {
      res.write(all.subarray(i, i + 37));
      await new Promise((r) => setImmediate(r));
    }
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setBehaviour(b) {
      behaviour = b ?? {};
      failuresLeft = b?.failTimes ?? Number.POSITIVE_INFINITY;
    },
    reset() {
      requests.length = 0;
      behaviour = {};
      failuresLeft = Number.POSITIVE_INFINITY;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
