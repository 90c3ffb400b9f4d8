// Scripted vendors for recording agents: each answers in its vendor's real wire format (the SSE
// framing and event order the vendor uses, the non-stream JSON, model lists, token counts), so the
// agent under recording behaves as it would against the real API. The script is one decision per
// model call: in the "tool" scenario, the first call that declares the agent's tool gets a call of
// that tool, and every other call (side calls for titles or checks, and the call carrying the
// tool's result) gets a short text answer.
import { claudeMessage, claudeStreamEvents } from "../mocks/anthropic";
import type { Protocol, Scenario } from "./fixture";
import type { ScriptedVendor, VendorAnswer } from "./recorder";

/** A tool the agent declared in a request: its name and JSON schema for the arguments. */
export interface DeclaredTool {
  name: string;
  schema: Record<string, any>;
  /** A Responses `custom` (freeform) tool: called with raw text, not JSON arguments. */
  freeform?: boolean;
}

export interface ToolCallPlan {
  name: string;
  /** JSON arguments, or for a freeform tool the raw text input. */
  args: Record<string, unknown> | string;
}

export interface Script {
  scenario: Scenario;
  /** Which of the declared tools to call, with what arguments; null if none fits. */
  planToolCall(tools: DeclaredTool[]): ToolCallPlan | null;
}

export const PLAIN_TEXT = "Hello! How can I help you today?";
export const FINAL_TEXT = "The file notes.txt says: hello from the recorder.";

const SIDE_TEXT = "Greeting";

const isObj = (v: unknown): v is Record<string, any> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The tools a request declares, flattened out of any grouping (namespaces, Gemini's declaration lists). */
function declaredTools(protocol: Protocol, body: Record<string, any>): DeclaredTool[] {
  const tools: unknown[] = Array.isArray(body.tools) ? body.tools : [];
  const out: DeclaredTool[] = [];
  // Codex declares its tools in an `additional_tools` input item as well as (or instead of) `tools`.
  if (protocol === "responses" && Array.isArray(body.input)) {
    for (const item of body.input) if (isObj(item) && item.type === "additional_tools") out.push(...responsesTools(item.tools ?? []));
  }
  for (const t of tools) {
    if (!isObj(t)) continue;
    if (protocol === "anthropic" && typeof t.name === "string") out.push({ name: t.name, schema: t.input_schema ?? {} });
    if (protocol === "openai" && isObj(t.function)) out.push({ name: t.function.name, schema: t.function.parameters ?? {} });
    if (protocol === "responses") out.push(...responsesTools([t]));
    if (protocol === "gemini" && Array.isArray(t.functionDeclarations)) {
      for (const d of t.functionDeclarations) out.push({ name: d.name, schema: d.parametersJsonSchema ?? d.parameters ?? {} });
    }
  }
  return out;
}

function responsesTools(tools: unknown[]): DeclaredTool[] {
  return tools.flatMap((t): DeclaredTool[] => {
    if (!isObj(t)) return [];
    if (t.type === "function") return [{ name: t.name, schema: t.parameters ?? {} }];
    if (t.type === "custom") return [{ name: t.name, schema: t.format ?? {}, freeform: true }];
    if (t.type === "namespace" && Array.isArray(t.tools)) return responsesTools(t.tools);
    return [];
  });
}

/** Whether the conversation already carries a tool's result, so the round trip is done. */
function hasToolResult(protocol: Protocol, body: Record<string, any>): boolean {
  const json = JSON.stringify(body);
  switch (protocol) {
    case "anthropic":
      return json.includes('"type":"tool_result"');
    case "responses":
      return /"type":"(function_call_output|custom_tool_call_output|local_shell_call_output)"/.test(json);
    case "gemini":
      return json.includes('"functionResponse"');
    case "openai":
      return Array.isArray(body.messages) && body.messages.some((m: any) => m?.role === "tool");
  }
}

/**
 * A value that satisfies a JSON schema, for side calls that ask for structured output (Gemini
 * CLI's and qwen-code's next-speaker checks, model routers). `next_speaker` is answered "user" so
 * the agent ends its turn instead of asking the model to continue.
 */
export function sampleOf(schema: unknown, name = ""): unknown {
  if (!isObj(schema)) return "ok";
  if (name === "next_speaker") return "user";
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants) && variants.length) return sampleOf(variants[0], name);
  const type = String(
    Array.isArray(schema.type) ? schema.type[0] : (schema.type ?? (schema.properties ? "object" : "string")),
  ).toLowerCase();
  if (type === "object") {
    const props: Record<string, unknown> = isObj(schema.properties) ? schema.properties : {};
    return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, sampleOf(v, k)]));
  }
  if (type === "array") return [];
  if (type === "integer" || type === "number") return 0;
  if (type === "boolean") return false;
  if (type === "null") return null;
  return "ok";
}

interface Decision {
  kind: "text" | "tool" | "json";
  text: string;
  tool?: ToolCallPlan;
}

function decide(protocol: Protocol, script: Script, body: Record<string, any>, jsonSchema: unknown): Decision {
  if (jsonSchema !== undefined) return { kind: "json", text: JSON.stringify(sampleOf(jsonSchema)) };
  const tools = declaredTools(protocol, body);
  if (tools.length === 0) return { kind: "text", text: SIDE_TEXT };
  if (script.scenario === "tool") {
    if (hasToolResult(protocol, body)) return { kind: "text", text: FINAL_TEXT };
    const plan = script.planToolCall(tools);
    if (plan) return { kind: "tool", text: "", tool: plan };
  }
  return { kind: "text", text: PLAIN_TEXT };
}

const pieces = (text: string, size = 12) => text.match(new RegExp(`[\\s\\S]{1,${size}}`, "g")) ?? [""];
let seq = 0;
const nextId = () => `${Date.now().toString(36)}${(++seq).toString().padStart(4, "0")}`;

// ---------------------------------------------------------------- Anthropic Messages

function anthropicVendor(script: Script): ScriptedVendor {
  return (req, body) => {
    const path = req.path.split("?")[0];
    if (req.method === "GET" && path.endsWith("/models")) {
      const id = "claude-sonnet-4-5-20250929";
      return {
        status: 200,
        json: {
          data: [{ type: "model", id, display_name: "Claude Sonnet 4.5", created_at: "2025-09-29T00:00:00Z" }],
          has_more: false,
          first_id: id,
          last_id: id,
        },
      };
    }
    if (path.endsWith("/messages/count_tokens")) return { status: 200, json: { input_tokens: 1234 } };
    if (!path.endsWith("/messages") || !isObj(body)) return notFound("anthropic");
    // Structured output is `output_config.format` since it left beta; the beta's `output_format` still works.
    const format = isObj(body.output_config?.format) ? body.output_config.format : body.output_format;
    const schema = isObj(format) && format.type === "json_schema" ? format.schema : undefined;
    const d = decide("anthropic", script, body, schema);
    const toolUse = d.tool && typeof d.tool.args !== "string" ? { name: d.tool.name, input: d.tool.args } : undefined;
    const behaviour = { content: toolUse ? "I'll read the file." : d.text, toolUses: toolUse ? [toolUse] : undefined };
    if (!body.stream) return { status: 200, json: claudeMessage(body, behaviour), headers: { "request-id": `req_${nextId()}` } };
    const events = claudeStreamEvents(body, behaviour);
    return {
      status: 200,
      sse: events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`),
      headers: { "request-id": `req_${nextId()}` },
    };
  };
}

// ---------------------------------------------------------------- OpenAI Responses

function responsesVendor(script: Script): ScriptedVendor {
  return (req, body) => {
    const path = req.path.split("?")[0];
    if (req.method === "GET" && path.endsWith("/models")) return openaiModels(["gpt-5.1-codex"]);
    if (!path.endsWith("/responses") || !isObj(body)) return notFound("openai");
    const format = body.text?.format;
    const schema = isObj(format) && format.type === "json_schema" ? format.schema : undefined;
    const d = decide("responses", script, body, schema);
    const id = `resp_${nextId()}`;
    const freeform = typeof d.tool?.args === "string";
    const item: Record<string, unknown> = d.tool
      ? freeform
        ? {
            type: "custom_tool_call",
            id: `ctc_${nextId()}`,
            call_id: `call_${nextId()}`,
            name: d.tool.name,
            input: d.tool.args,
            status: "completed",
          }
        : {
            type: "function_call",
            id: `fc_${nextId()}`,
            call_id: `call_${nextId()}`,
            name: d.tool.name,
            arguments: JSON.stringify(d.tool.args),
            status: "completed",
          }
      : {
          type: "message",
          id: `msg_${nextId()}`,
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: d.text, annotations: [], logprobs: [] }],
        };
    const usage = {
      input_tokens: 1200,
      input_tokens_details: { cached_tokens: 1024 },
      output_tokens: 40,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 1240,
    };
    const response = (status: "in_progress" | "completed") => ({
      id,
      object: "response",
      created_at: Math.floor(Date.now() / 1000),
      status,
      background: false,
      error: null,
      incomplete_details: null,
      instructions: body.instructions ?? null,
      max_output_tokens: body.max_output_tokens ?? null,
      model: body.model,
      output: status === "completed" ? [item] : [],
      parallel_tool_calls: body.parallel_tool_calls ?? true,
      previous_response_id: body.previous_response_id ?? null,
      reasoning: { effort: body.reasoning?.effort ?? null, summary: null },
      store: body.store ?? true,
      temperature: 1,
      text: { format: { type: "text" } },
      tool_choice: body.tool_choice ?? "auto",
      tools: body.tools ?? [],
      top_p: 1,
      truncation: "disabled",
      usage: status === "completed" ? usage : null,
      user: null,
      metadata: {},
    });
    if (!body.stream) return { status: 200, json: response("completed") };
    const events: Record<string, unknown>[] = [];
    const push = (e: Record<string, unknown>) => events.push({ ...e, sequence_number: events.length });
    push({ type: "response.created", response: response("in_progress") });
    push({ type: "response.in_progress", response: response("in_progress") });
    if (d.tool && freeform) {
      push({ type: "response.output_item.added", output_index: 0, item: { ...item, input: "", status: "in_progress" } });
      for (const delta of pieces(String(item.input)))
        push({ type: "response.custom_tool_call_input.delta", item_id: item.id, output_index: 0, delta });
      push({ type: "response.custom_tool_call_input.done", item_id: item.id, output_index: 0, input: item.input });
    } else if (d.tool) {
      push({ type: "response.output_item.added", output_index: 0, item: { ...item, arguments: "", status: "in_progress" } });
      for (const delta of pieces(String(item.arguments))) {
        push({ type: "response.function_call_arguments.delta", item_id: item.id, output_index: 0, delta });
      }
      push({ type: "response.function_call_arguments.done", item_id: item.id, output_index: 0, arguments: item.arguments });
    } else {
      push({ type: "response.output_item.added", output_index: 0, item: { ...item, status: "in_progress", content: [] } });
      const part = { type: "output_text", text: "", annotations: [], logprobs: [] };
      push({ type: "response.content_part.added", item_id: item.id, output_index: 0, content_index: 0, part });
      for (const delta of pieces(d.text)) {
        push({ type: "response.output_text.delta", item_id: item.id, output_index: 0, content_index: 0, delta, logprobs: [] });
      }
      push({ type: "response.output_text.done", item_id: item.id, output_index: 0, content_index: 0, text: d.text, logprobs: [] });
      push({ type: "response.content_part.done", item_id: item.id, output_index: 0, content_index: 0, part: { ...part, text: d.text } });
    }
    push({ type: "response.output_item.done", output_index: 0, item });
    push({ type: "response.completed", response: response("completed") });
    return { status: 200, sse: events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`) };
  };
}

// ---------------------------------------------------------------- Gemini

function geminiVendor(script: Script): ScriptedVendor {
  return (req, body) => {
    const path = req.path.split("?")[0];
    if (req.method === "GET" && /\/models\/?$/.test(path)) {
      return {
        status: 200,
        json: {
          models: [
            {
              name: "models/gemini-2.5-pro",
              displayName: "Gemini 2.5 Pro",
              supportedGenerationMethods: ["generateContent", "countTokens"],
            },
          ],
        },
      };
    }
    const m = /\/models\/([^/:]+):(\w+)$/.exec(path);
    if (!m || !isObj(body)) return notFound("gemini");
    const [, model, method] = m;
    if (method === "countTokens") return { status: 200, json: { totalTokens: 1234 } };
    if (method === "embedContent") return { status: 200, json: { embedding: { values: [0.1, 0.2, 0.3] } } };
    if (method !== "generateContent" && method !== "streamGenerateContent") return notFound("gemini");
    const gc = body.generationConfig ?? {};
    const schema = gc.responseMimeType === "application/json" ? (gc.responseJsonSchema ?? gc.responseSchema ?? {}) : undefined;
    const d = decide("gemini", script, body, schema);
    const responseId = `gem${nextId()}`;
    const usage = (final: boolean) => ({
      promptTokenCount: 1200,
      ...(final ? { candidatesTokenCount: 20 } : {}),
      totalTokenCount: final ? 1220 : 1200,
      cachedContentTokenCount: 1024,
      promptTokensDetails: [{ modality: "TEXT", tokenCount: 1200 }],
    });
    const chunk = (parts: unknown[], final: boolean) => ({
      candidates: [{ content: { parts, role: "model" }, ...(final ? { finishReason: "STOP" } : {}), index: 0 }],
      usageMetadata: usage(final),
      modelVersion: model,
      responseId,
    });
    const partsOf = (text: string) => [{ text }];
    if (method === "generateContent") {
      const parts = d.tool ? [{ functionCall: { name: d.tool.name, args: d.tool.args } }] : partsOf(d.text);
      return { status: 200, json: chunk(parts, true) };
    }
    const chunks = d.tool
      ? [chunk([{ functionCall: { name: d.tool.name, args: d.tool.args } }], true)]
      : pieces(d.text).map((p, i, all) => chunk(partsOf(p), i === all.length - 1));
    return { status: 200, sse: chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`) };
  };
}

// ---------------------------------------------------------------- OpenAI chat completions

function openaiVendor(script: Script): ScriptedVendor {
  return (req, body) => {
    const path = req.path.split("?")[0];
    if (req.method === "GET" && path.endsWith("/models")) return openaiModels(["qwen3-coder-plus", "gpt-4o"]);
    if (!path.endsWith("/chat/completions") || !isObj(body)) return notFound("openai");
    const rf = body.response_format;
    const schema =
      isObj(rf) && rf.type === "json_schema" ? (rf.json_schema?.schema ?? {}) : isObj(rf) && rf.type === "json_object" ? {} : undefined;
    const d = decide("openai", script, body, schema);
    const id = `chatcmpl-${nextId()}`;
    const created = Math.floor(Date.now() / 1000);
    const usage = { prompt_tokens: 1200, completion_tokens: 20, total_tokens: 1220, prompt_tokens_details: { cached_tokens: 1024 } };
    const toolCall = d.tool && {
      id: `call_${nextId()}`,
      type: "function",
      function: { name: d.tool.name, arguments: JSON.stringify(d.tool.args) },
    };
    const finish = toolCall ? "tool_calls" : "stop";
    if (!body.stream) {
      const message = toolCall ? { role: "assistant", content: null, tool_calls: [toolCall] } : { role: "assistant", content: d.text };
      return {
        status: 200,
        json: {
          id,
          object: "chat.completion",
          created,
          model: body.model,
          choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
          usage,
        },
      };
    }
    const frame = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: body.model, system_fingerprint: "fp_recorder", choices, ...extra })}\n\n`;
    const frames = [frame([{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }])];
    if (toolCall) {
      const args = toolCall.function.arguments;
      frames.push(
        frame([
          {
            index: 0,
            delta: {
              tool_calls: [{ index: 0, id: toolCall.id, type: "function", function: { name: toolCall.function.name, arguments: "" } }],
            },
            logprobs: null,
            finish_reason: null,
          },
        ]),
      );
      for (const p of pieces(args))
        frames.push(
          frame([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: p } }] }, logprobs: null, finish_reason: null }]),
        );
    } else {
      for (const p of pieces(d.text)) frames.push(frame([{ index: 0, delta: { content: p }, logprobs: null, finish_reason: null }]));
    }
    frames.push(frame([{ index: 0, delta: {}, logprobs: null, finish_reason: finish }]));
    if (body.stream_options?.include_usage) frames.push(frame([], { usage }));
    frames.push("data: [DONE]\n\n");
    return { status: 200, sse: frames };
  };
}

function openaiModels(ids: string[]): VendorAnswer {
  return {
    status: 200,
    json: { object: "list", data: ids.map((id) => ({ id, object: "model", created: 1_730_000_000, owned_by: "recorder" })) },
  };
}

/** Each vendor's own 404, for paths an agent tries that this recorder does not serve. */
function notFound(vendor: "anthropic" | "openai" | "gemini"): VendorAnswer {
  if (vendor === "anthropic") return { status: 404, json: { type: "error", error: { type: "not_found_error", message: "Not found" } } };
  if (vendor === "gemini") return { status: 404, json: { error: { code: 404, message: "Not found", status: "NOT_FOUND" } } };
  return { status: 404, json: { error: { message: "Not found", type: "invalid_request_error", param: null, code: "not_found" } } };
}

export function scriptedVendor(protocol: Protocol, script: Script): ScriptedVendor {
  switch (protocol) {
    case "anthropic":
      return anthropicVendor(script);
    case "responses":
      return responsesVendor(script);
    case "gemini":
      return geminiVendor(script);
    case "openai":
      return openaiVendor(script);
  }
}
