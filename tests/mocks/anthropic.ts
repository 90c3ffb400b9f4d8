// A mock Anthropic Messages API on 127.0.0.1 for integration tests, speaking Anthropic's wire
// format: `POST /v1/messages` with `x-api-key` and `anthropic-version`, `message` answers, the
// SSE stream (`event: <type>` + `data: <json>`, ping, content blocks, message_delta usage) and
// `{"type":"error","error":{type,message}}` bodies (401 authentication_error, 529 overloaded…).
// The answer builders are shared with the Bedrock mock (tests/mocks/bedrock.ts).
//
//   const mock = await startAnthropicMock({ apiKey: "sk-ant" });
//   mock.setBehaviour({ failStatus: 529, failTimes: 1 });
//   mock.requests[0].json; await mock.close();
import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface ClaudeToolUse {
  name: string;
  input: Record<string, unknown>;
}

export interface ClaudeBehaviour {
  /** Answer with this status and Anthropic's error body for it. */
  failStatus?: number;
  /** Fail only the next N requests. */
  failTimes?: number;
  /** The reply text (streamed in pieces of `chunkSize` characters). */
  content?: string;
  chunkSize?: number;
  /** Answer with these tool calls after the text. */
  toolUses?: ClaudeToolUse[];
  /**
   * Answer with a call of the first client tool the request declares (input `{}`) after the text;
   * text only when it declares none. Replayed agent sessions use it with the agent's own tool names.
   */
  callFirstTool?: boolean;
  /** A thinking block before the text. */
  thinking?: string;
  /** Usage counts (defaults: 12 input, 1000 cache read, 200 cache write, 9 output). */
  usage?: Partial<ClaudeUsage>;
  /** Stream: an `error` event (overloaded) after this many text deltas, then the end. */
  errorAfterDeltas?: number;
  /**
   * Stream: the byte offsets (of the whole stream's text, given) where it is cut into pieces, each
   * written on its own after a pause, so the relay reads events split anywhere.
   */
  splitAt?: (wire: string) => number[];
  /** Stream: the byte offset (of the whole stream's text, given) after which the connection is dropped. */
  cutOffAt?: (wire: string) => number;
}

export interface ClaudeUsage {
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  output_tokens: number;
}

export interface ClaudeRecordedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, any>;
}

export const CLAUDE_TEXT = "Hello! How can I help you today?";
export const CLAUDE_USAGE: ClaudeUsage = {
  input_tokens: 12,
  cache_read_input_tokens: 1000,
  cache_creation_input_tokens: 200,
  output_tokens: 9,
};

export const CLAUDE_ERRORS: Record<number, { type: string; message: string }> = {
  400: { type: "invalid_request_error", message: "messages: at least one message is required" },
  401: { type: "authentication_error", message: "invalid x-api-key" },
  403: { type: "permission_error", message: "Your API key does not have permission to use the specified resource." },
  404: { type: "not_found_error", message: "model: claude-unknown" },
  429: { type: "rate_limit_error", message: "Number of request tokens has exceeded your per-minute rate limit" },
  500: { type: "api_error", message: "Internal server error" },
  529: { type: "overloaded_error", message: "Overloaded" },
};

export function claudeErrorBody(status: number): { type: "error"; error: { type: string; message: string } } {
  return { type: "error", error: CLAUDE_ERRORS[status] ?? { type: "api_error", message: `error ${status}` } };
}

let seq = 0;
const msgId = () => `msg_01Mock${(++seq).toString().padStart(6, "0")}`;
const toolId = (i: number) => `toolu_01Mock${seq}x${i}`;

/** The whole `message` for a request. */
export function claudeMessage(req: Record<string, any>, b: ClaudeBehaviour = {}): Record<string, unknown> {
  const content: Record<string, unknown>[] = [];
  if (b.thinking) content.push({ type: "thinking", thinking: b.thinking, signature: "EqQBCgIYAhIMsig" });
  content.push({ type: "text", text: b.content ?? CLAUDE_TEXT });
  b.toolUses?.forEach((t, i) => content.push({ type: "tool_use", id: toolId(i), name: t.name, input: t.input }));
  return {
    id: msgId(),
    type: "message",
    role: "assistant",
    model: req.model ?? "claude-3-5-sonnet-20241022",
    content,
    stop_reason: b.toolUses?.length ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { ...CLAUDE_USAGE, ...b.usage },
  };
}

/** The stream's events for a request, in order, as Anthropic sends them. */
export function claudeStreamEvents(req: Record<string, any>, b: ClaudeBehaviour = {}): Record<string, unknown>[] {
  const usage = { ...CLAUDE_USAGE, ...b.usage };
  const events: Record<string, unknown>[] = [
    {
      type: "message_start",
      message: {
        id: msgId(),
        type: "message",
        role: "assistant",
        model: req.model ?? "claude-3-5-sonnet-20241022",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    },
  ];
  let index = 0;
  if (b.thinking) {
    events.push({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } });
    events.push({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: b.thinking } });
    events.push({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: "EqQBCgIYAhIMsig" } });
    events.push({ type: "content_block_stop", index: index++ });
  }
  events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
  events.push({ type: "ping" });
  const text = b.content ?? CLAUDE_TEXT;
  const size = b.chunkSize ?? 6;
  let deltas = 0;
  for (let i = 0; i < text.length; i += size) {
    if (b.errorAfterDeltas !== undefined && deltas === b.errorAfterDeltas) {
      events.push({ type: "error", error: CLAUDE_ERRORS[529] });
      return events;
    }
    events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: text.slice(i, i + size) } });
    deltas++;
  }
  events.push({ type: "content_block_stop", index: index++ });
  b.toolUses?.forEach((t, i) => {
    events.push({ type: "content_block_start", index, content_block: { type: "tool_use", id: toolId(i), name: t.name, input: {} } });
    events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: "" } });
    const json = JSON.stringify(t.input);
    const half = Math.floor(json.length / 2);
    events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: json.slice(0, half) } });
    events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: json.slice(half) } });
    events.push({ type: "content_block_stop", index: index++ });
  });
  events.push({
    type: "message_delta",
    delta: { stop_reason: b.toolUses?.length ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  events.push({ type: "message_stop" });
  return events;
}

/** A call of the first client tool (no `type`, or `custom`) a request declares; none when it declares none. */
function firstDeclaredTool(req: Record<string, any>): ClaudeToolUse[] {
  const tools: Array<Record<string, unknown>> = Array.isArray(req.tools) ? req.tools : [];
  const tool = tools.find((t) => (t.type === undefined || t.type === "custom") && typeof t.name === "string");
  return tool ? [{ name: tool.name as string, input: {} }] : [];
}

export interface AnthropicMock {
  url: string;
  requests: ClaudeRecordedRequest[];
  setBehaviour(b: ClaudeBehaviour | null): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startAnthropicMock(opts: { apiKey?: string } = {}): Promise<AnthropicMock> {
  const requests: ClaudeRecordedRequest[] = [];
  let behaviour: ClaudeBehaviour = {};
  let failuresLeft = Number.POSITIVE_INFINITY;
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    let json: Record<string, any> = {};
    try {
      json = JSON.parse(body);
    } catch {
      // recorded as {}; the checks below refuse it
    }
    const path = (req.url ?? "").split("?")[0]!;
    requests.push({ path, headers: req.headers, body, json });
    const fail = (status: number) => {
      res.writeHead(status, { "content-type": "application/json", "request-id": "req_mock" });
      res.end(JSON.stringify(claudeErrorBody(status)));
    };
    if (req.method !== "POST" || path !== "/v1/messages") return fail(404);
    if (opts.apiKey !== undefined && req.headers["x-api-key"] !== opts.apiKey) return fail(401);
    if (!req.headers["anthropic-version"]) return fail(400);
    if (!Array.isArray(json.messages) || typeof json.max_tokens !== "number" || typeof json.model !== "string") return fail(400);
    if (behaviour.failStatus && failuresLeft > 0) {
      failuresLeft--;
      return fail(behaviour.failStatus);
    }
    const answer = behaviour.callFirstTool ? { ...behaviour, toolUses: firstDeclaredTool(json) } : behaviour;
    if (json.stream === true) {
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
      if (answer.splitAt || answer.cutOffAt) return writePieces(res, claudeStreamEvents(json, answer), answer);
      for (const e of claudeStreamEvents(json, answer)) {
        res.write(`event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`);
        await new Promise((r) => setImmediate(r));
      }
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(claudeMessage(json, answer)));
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

/** The stream's bytes in the pieces `splitAt` names, dropping the connection at `cutOffAt`. */
async function writePieces(res: http.ServerResponse, events: Record<string, unknown>[], b: ClaudeBehaviour): Promise<void> {
  const wire = events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join("");
  const bytes = Buffer.from(wire);
  const end = b.cutOffAt ? b.cutOffAt(wire) : bytes.length;
  const cuts = [...(b.splitAt?.(wire) ?? []).filter((at) => at > 0 && at < end), end].sort((x, y) => x - y);
  let from = 0;
  for (const to of cuts) {
    if (to > from) res.write(bytes.subarray(from, to));
    from = to;
    // A pause long enough for each piece to reach the relay as a read of its own.
    await new Promise((r) => setTimeout(r, 5));
  }
  if (b.cutOffAt) res.destroy();
  else res.end();
}
