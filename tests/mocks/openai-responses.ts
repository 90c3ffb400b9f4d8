// A mock of OpenAI's Responses API on 127.0.0.1, speaking its wire format: `POST /v1/responses`
// (OpenAI, `Authorization: Bearer`) and `POST /openai/v1/responses` (Azure's v1 surface,
// `api-key`), a whole Response object, or its named event stream (`event: <type>` + `data:` with
// `type` and `sequence_number`, ending with `response.completed`, no [DONE]), and OpenAI's
// `{"error": {message, type, param, code}}` bodies. A request with a `web_search` tool gets a
// `web_search_call` item before the message, as OpenAI answers.
//
//   const mock = await startResponsesMock({ apiKey: "sk-upstream-key" });
//   mock.requests[0].json; mock.setBehaviour({ failStatus: 429 }); await mock.close();
import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export const RESPONSES_TEXT = "Hello! How can I help you today?";
export const RESPONSES_USAGE = {
  input_tokens: 1200,
  input_tokens_details: { cached_tokens: 1024 },
  output_tokens: 40,
  output_tokens_details: { reasoning_tokens: 32 },
  total_tokens: 1240,
};

export interface ResponsesBehaviour {
  /** Answer with this status and OpenAI's error body. */
  failStatus?: number;
  /** Stream: a `response.failed` event after the first text delta, then the end. */
  failMidway?: boolean;
  /**
   * Answer with a call of the first tool the request declares (in `tools`, or in an
   * `additional_tools` input item as Codex sends them; namespaces searched in order): a
   * `function_call` with arguments `{}` for a function, a `custom_tool_call` with empty input for a
   * custom tool. Text when it declares none. Replayed agent sessions use it.
   */
  callFirstTool?: boolean;
  /** Report this usage instead of RESPONSES_USAGE. */
  usage?: typeof RESPONSES_USAGE;
}

type DeclaredTool = { type: "function" | "custom"; name: string };

/** The first function or custom tool of a list, namespaces opened in order. */
function firstTool(tools: unknown): DeclaredTool | null {
  if (!Array.isArray(tools)) return null;
  for (const t of tools as Array<Record<string, unknown>>) {
    if ((t?.type === "function" || t?.type === "custom") && typeof t.name === "string") return { type: t.type, name: t.name };
    if (t?.type === "namespace") {
      const inner = firstTool(t.tools);
      if (inner) return inner;
    }
  }
  return null;
}

/** The tool a `callFirstTool` answer calls: from `tools`, then from `additional_tools` input items. */
function declaredTool(req: Record<string, any>): DeclaredTool | null {
  const direct = firstTool(req.tools);
  if (direct) return direct;
  const items: Array<Record<string, unknown>> = Array.isArray(req.input) ? req.input : [];
  for (const item of items) {
    if (item?.type !== "additional_tools") continue;
    const found = firstTool(item.tools);
    if (found) return found;
  }
  return null;
}

/** The output item of a tool call answer, `status` as given. */
function toolCallItem(tool: DeclaredTool, id: string, status: "in_progress" | "completed"): Record<string, unknown> {
  return tool.type === "function"
    ? {
        type: "function_call",
        id: `fc_${id}`,
        call_id: `call_${id}`,
        name: tool.name,
        arguments: status === "completed" ? "{}" : "",
        status,
      }
    : { type: "custom_tool_call", id: `ctc_${id}`, call_id: `call_${id}`, name: tool.name, input: "", status };
}

export interface ResponsesRecordedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  json: Record<string, any>;
}

export interface ResponsesMock {
  url: string;
  requests: ResponsesRecordedRequest[];
  setBehaviour(b: ResponsesBehaviour): void;
  reset(): void;
  close(): Promise<void>;
}

let seq = 0;

/** The Response object for a request, `status` as given. */
function responseObject(
  req: Record<string, any>,
  status: "in_progress" | "completed",
  id: string,
  msgId: string,
  b: ResponsesBehaviour = {},
): Record<string, unknown> {
  const output: Record<string, unknown>[] = [];
  const searches = Array.isArray(req.tools) && req.tools.some((t: { type?: string }) => t?.type === "web_search");
  const tool = b.callFirstTool ? declaredTool(req) : null;
  if (status === "completed" && tool) output.push(toolCallItem(tool, id, "completed"));
  else if (status === "completed") {
    if (searches) output.push({ type: "web_search_call", id: `ws_${id}`, status: "completed", action: { type: "search", query: "news" } });
    output.push({
      type: "message",
      id: msgId,
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: RESPONSES_TEXT, annotations: [], logprobs: [] }],
    });
  }
  return {
    id,
    object: "response",
    created_at: 1_741_476_542,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: req.instructions ?? null,
    max_output_tokens: req.max_output_tokens ?? null,
    model: `${req.model}-2024-07-18`,
    output,
    parallel_tool_calls: true,
    previous_response_id: req.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    store: req.store ?? true,
    temperature: req.temperature ?? 1,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: req.tools ?? [],
    top_p: 1,
    truncation: "disabled",
    usage: status === "completed" ? (b.usage ?? RESPONSES_USAGE) : null,
    user: null,
    metadata: req.metadata ?? {},
  };
}

function streamEvents(req: Record<string, any>, id: string, msgId: string, b: ResponsesBehaviour): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  const push = (e: Record<string, unknown>) => events.push({ ...e, sequence_number: events.length });
  push({ type: "response.created", response: responseObject(req, "in_progress", id, msgId, b) });
  push({ type: "response.in_progress", response: responseObject(req, "in_progress", id, msgId, b) });
  const tool = b.callFirstTool ? declaredTool(req) : null;
  if (tool) {
    push({ type: "response.output_item.added", output_index: 0, item: toolCallItem(tool, id, "in_progress") });
    const itemId = tool.type === "function" ? `fc_${id}` : `ctc_${id}`;
    if (tool.type === "function") {
      push({ type: "response.function_call_arguments.delta", item_id: itemId, output_index: 0, delta: "{}" });
      push({ type: "response.function_call_arguments.done", item_id: itemId, output_index: 0, arguments: "{}" });
    } else {
      push({ type: "response.custom_tool_call_input.done", item_id: itemId, output_index: 0, input: "" });
    }
    push({ type: "response.output_item.done", output_index: 0, item: toolCallItem(tool, id, "completed") });
    push({ type: "response.completed", response: responseObject(req, "completed", id, msgId, b) });
    return events;
  }
  const item = { type: "message", id: msgId, status: "in_progress", role: "assistant", content: [] };
  push({ type: "response.output_item.added", output_index: 0, item });
  const part = { type: "output_text", text: "", annotations: [], logprobs: [] };
  push({ type: "response.content_part.added", item_id: msgId, output_index: 0, content_index: 0, part });
  const pieces = RESPONSES_TEXT.match(/.{1,10}/g)!;
  for (const [i, delta] of pieces.entries()) {
    push({ type: "response.output_text.delta", item_id: msgId, output_index: 0, content_index: 0, delta, logprobs: [] });
    if (b.failMidway && i === 0) {
      const failed = {
        ...responseObject(req, "in_progress", id, msgId, b),
        status: "failed",
        error: { code: "server_error", message: "The server had an error" },
      };
      push({ type: "response.failed", response: failed });
      return events;
    }
  }
  push({ type: "response.output_text.done", item_id: msgId, output_index: 0, content_index: 0, text: RESPONSES_TEXT, logprobs: [] });
  const done = { ...part, text: RESPONSES_TEXT };
  push({ type: "response.content_part.done", item_id: msgId, output_index: 0, content_index: 0, part: done });
  push({ type: "response.output_item.done", output_index: 0, item: { ...item, status: "completed", content: [done] } });
  push({ type: "response.completed", response: responseObject(req, "completed", id, msgId, b) });
  return events;
}

const ERRORS: Record<number, { message: string; type: string; code: string | null }> = {
  401: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" },
  429: { message: "Rate limit reached for gpt-4o-mini", type: "requests", code: "rate_limit_exceeded" },
  500: { message: "The server had an error while processing your request.", type: "server_error", code: null },
};

export async function startResponsesMock(opts: { apiKey?: string } = {}): Promise<ResponsesMock> {
  const requests: ResponsesRecordedRequest[] = [];
  let behaviour: ResponsesBehaviour = {};
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "").split("?")[0]!;
      const fail = (status: number) => {
        const e = ERRORS[status] ?? { message: `error ${status}`, type: "server_error", code: null };
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { ...e, param: null } }));
      };
      if (req.method !== "POST" || (path !== "/v1/responses" && path !== "/openai/v1/responses")) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            error: { message: `Invalid URL (${req.method} ${path})`, type: "invalid_request_error", param: null, code: null },
          }),
        );
        return;
      }
      const key = path.startsWith("/openai/") ? req.headers["api-key"] : req.headers.authorization?.replace(/^Bearer /, "");
      let json: Record<string, any>;
      try {
        json = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        fail(400);
        return;
      }
      requests.push({ path, headers: req.headers, json });
      if (opts.apiKey && key !== opts.apiKey) return fail(401);
      if (behaviour.failStatus) return fail(behaviour.failStatus);
      const id = `resp_mock${(++seq).toString().padStart(6, "0")}`;
      const msgId = `msg_mock${seq.toString().padStart(6, "0")}`;
      if (json.stream !== true) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(responseObject(json, "completed", id, msgId, behaviour)));
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
      for (const e of streamEvents(json, id, msgId, behaviour)) res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setBehaviour: (b) => {
      behaviour = b;
    },
    reset: () => {
      requests.length = 0;
      behaviour = {};
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
