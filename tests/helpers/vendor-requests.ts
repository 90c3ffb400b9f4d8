// What each vendor accepts as a request body, as its API reference documents it, to check what
// Qiao sends upstream when it converts a caller's request for another vendor's channel. A mock
// vendor answers whatever it gets; the real ones refuse a body with a field they do not know or a
// value of the wrong shape, so a converted request is only as good as these schemas say.
//
// Sources (the request references, read for this file):
// - OpenAI chat completions: https://platform.openai.com/docs/api-reference/chat/create. The API
//   refuses unknown members ("Unrecognized request argument supplied", "Additional properties are
//   not allowed"): objects are strict, at the top level and in messages, parts and tools.
//   `max_tokens` is deprecated in favour of `max_completion_tokens` and "not compatible with
//   o-series models" (nor gpt-5): reasoning models take only the latter.
// - OpenAI Responses: https://platform.openai.com/docs/api-reference/responses/create. Only used
//   on bodies passed through as the caller sent them; OpenAI's own clients (Codex) send members
//   the public reference does not list, so the top level is not strict there.
// - Anthropic Messages: https://docs.anthropic.com/en/api/messages. Unknown members are refused
//   ("Extra inputs are not permitted"); roles are `user` and `assistant` only, the system text is
//   the top-level `system`; `max_tokens` is required. Members that need a beta header
//   (`context_management`, `defer_loading` on tools…) are not here: a converted request carries
//   none of the caller's betas.
// - Gemini generateContent: https://ai.google.dev/api/generate-content. Protobuf JSON: an unknown
//   member is refused ("Invalid JSON payload received. Unknown name"); roles are `user` and
//   `model`; function names match [a-zA-Z0-9_:.-]{1,64}; `responseJsonSchema` wants a
//   `responseMimeType` and excludes `responseSchema`. Google's clients send camelCase, and so do
//   these schemas (the API also reads snake_case, which Qiao never sends).
// Beside the shape, the output budget must fit the upstream model (lib/billing/output-limits.ts):
// a vendor refuses a `max_tokens` above the model's output limit.
import { z } from "zod";
import { outputLimit } from "@/lib/billing/output-limits";

const json = z.record(z.string(), z.unknown());
/** A JSON Schema object, as tools and structured outputs carry it (its contents are the schema's own). */
const jsonSchema = json;

// ---------------------------------------------------------------------------------------------
// OpenAI chat completions
// ---------------------------------------------------------------------------------------------

const openaiText = z.strictObject({ type: z.literal("text"), text: z.string() });
const openaiUserPart = z.discriminatedUnion("type", [
  openaiText,
  z.strictObject({
    type: z.literal("image_url"),
    image_url: z.strictObject({ url: z.string(), detail: z.enum(["auto", "low", "high"]).optional() }),
  }),
  z.strictObject({
    type: z.literal("input_audio"),
    input_audio: z.strictObject({ data: z.string(), format: z.enum(["wav", "mp3"]) }),
  }),
  z.strictObject({
    type: z.literal("file"),
    file: z.strictObject({ file_data: z.string().optional(), file_id: z.string().optional(), filename: z.string().optional() }),
  }),
]);
const openaiAssistantPart = z.discriminatedUnion("type", [openaiText, z.strictObject({ type: z.literal("refusal"), refusal: z.string() })]);
/** OpenAI's function names: letters, digits, underscores and dashes, 64 at most. */
const openaiFunctionName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/);
const openaiToolCall = z.discriminatedUnion("type", [
  z.strictObject({
    id: z.string(),
    type: z.literal("function"),
    function: z.strictObject({ name: openaiFunctionName, arguments: z.string() }),
  }),
  z.strictObject({ id: z.string(), type: z.literal("custom"), custom: z.strictObject({ name: z.string(), input: z.string() }) }),
]);

const openaiMessage = z.discriminatedUnion("role", [
  z.strictObject({ role: z.literal("developer"), content: z.union([z.string(), z.array(openaiText)]), name: z.string().optional() }),
  z.strictObject({ role: z.literal("system"), content: z.union([z.string(), z.array(openaiText)]), name: z.string().optional() }),
  z.strictObject({ role: z.literal("user"), content: z.union([z.string(), z.array(openaiUserPart)]), name: z.string().optional() }),
  z.strictObject({
    role: z.literal("assistant"),
    content: z.union([z.string(), z.array(openaiAssistantPart), z.null()]).optional(),
    refusal: z.string().nullable().optional(),
    name: z.string().optional(),
    audio: z.strictObject({ id: z.string() }).nullable().optional(),
    tool_calls: z.array(openaiToolCall).optional(),
    function_call: z.strictObject({ name: z.string(), arguments: z.string() }).nullable().optional(),
  }),
  z.strictObject({ role: z.literal("tool"), content: z.union([z.string(), z.array(openaiText)]), tool_call_id: z.string() }),
  z.strictObject({ role: z.literal("function"), content: z.string().nullable(), name: z.string() }),
]);

const openaiTool = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("function"),
    function: z.strictObject({
      name: openaiFunctionName,
      description: z.string().optional(),
      parameters: jsonSchema.optional(),
      strict: z.boolean().nullable().optional(),
    }),
  }),
  z.strictObject({
    type: z.literal("custom"),
    custom: z.strictObject({ name: z.string(), description: z.string().optional(), format: json.optional() }),
  }),
]);

const openaiToolChoice = z.union([
  z.enum(["none", "auto", "required"]),
  z.strictObject({ type: z.literal("function"), function: z.strictObject({ name: z.string() }) }),
  z.strictObject({ type: z.literal("custom"), custom: z.strictObject({ name: z.string() }) }),
  z.strictObject({
    type: z.literal("allowed_tools"),
    allowed_tools: z.strictObject({ mode: z.enum(["auto", "required"]), tools: z.array(json) }),
  }),
]);

const openaiResponseFormat = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("text") }),
  z.strictObject({ type: z.literal("json_object") }),
  z.strictObject({
    type: z.literal("json_schema"),
    json_schema: z.strictObject({
      name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
      description: z.string().optional(),
      schema: jsonSchema.optional(),
      strict: z.boolean().nullable().optional(),
    }),
  }),
]);

const effort = z.enum(["none", "minimal", "low", "medium", "high", "xhigh"]);

export const openaiChatRequest = z
  .strictObject({
    model: z.string(),
    messages: z.array(openaiMessage).min(1),
    audio: json.nullable().optional(),
    frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
    function_call: z.union([z.enum(["none", "auto"]), z.strictObject({ name: z.string() })]).optional(),
    functions: z.array(json).optional(),
    logit_bias: z.record(z.string(), z.number()).nullable().optional(),
    logprobs: z.boolean().nullable().optional(),
    max_completion_tokens: z.number().int().positive().nullable().optional(),
    max_tokens: z.number().int().positive().nullable().optional(),
    metadata: z.record(z.string(), z.string()).nullable().optional(),
    modalities: z
      .array(z.enum(["text", "audio"]))
      .nullable()
      .optional(),
    n: z.number().int().min(1).max(128).nullable().optional(),
    parallel_tool_calls: z.boolean().optional(),
    prediction: json.nullable().optional(),
    presence_penalty: z.number().min(-2).max(2).nullable().optional(),
    prompt_cache_key: z.string().optional(),
    prompt_cache_retention: z.enum(["in-memory", "24h"]).nullable().optional(),
    reasoning_effort: effort.nullable().optional(),
    response_format: openaiResponseFormat.optional(),
    safety_identifier: z.string().optional(),
    seed: z.number().int().nullable().optional(),
    service_tier: z.enum(["auto", "default", "flex", "scale", "priority"]).nullable().optional(),
    stop: z
      .union([z.string(), z.array(z.string()).max(4)])
      .nullable()
      .optional(),
    store: z.boolean().nullable().optional(),
    stream: z.boolean().nullable().optional(),
    stream_options: z
      .strictObject({ include_usage: z.boolean().optional(), include_obfuscation: z.boolean().optional() })
      .nullable()
      .optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    tool_choice: openaiToolChoice.optional(),
    tools: z.array(openaiTool).optional(),
    top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
    top_p: z.number().min(0).max(1).nullable().optional(),
    user: z.string().optional(),
    verbosity: z.enum(["low", "medium", "high"]).nullable().optional(),
    web_search_options: json.optional(),
  })
  .refine((b) => b.max_tokens == null || b.max_completion_tokens == null, {
    message: "max_tokens and max_completion_tokens are both set",
  })
  .refine((b) => b.stream_options == null || b.stream === true, { message: "stream_options is only allowed with stream: true" });

/** OpenAI's reasoning models (o-series, gpt-5) refuse `max_tokens`: they take `max_completion_tokens`. */
export function takesMaxCompletionTokens(model: string): boolean {
  return /^(o\d|gpt-5)/.test(model.toLowerCase()) && !model.toLowerCase().startsWith("gpt-5-chat");
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses (bodies passed through: the documented members typed, others let be)
// ---------------------------------------------------------------------------------------------

export const openaiResponsesRequest = z.looseObject({
  model: z.string(),
  input: z.union([z.string(), z.array(json)]).optional(),
  instructions: z.string().nullable().optional(),
  tools: z.array(z.looseObject({ type: z.string() })).optional(),
  tool_choice: z.union([z.enum(["none", "auto", "required"]), json]).optional(),
  parallel_tool_calls: z.boolean().nullable().optional(),
  reasoning: z.looseObject({ effort: effort.nullable().optional(), summary: z.string().nullable().optional() }).nullable().optional(),
  include: z.array(z.string()).nullable().optional(),
  store: z.boolean().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  prompt_cache_key: z.string().optional(),
  text: json.optional(),
  max_output_tokens: z.number().int().positive().nullable().optional(),
  previous_response_id: z.string().nullable().optional(),
  metadata: z.record(z.string(), z.string()).nullable().optional(),
  temperature: z.number().nullable().optional(),
  top_p: z.number().nullable().optional(),
});

// ---------------------------------------------------------------------------------------------
// Anthropic Messages
// ---------------------------------------------------------------------------------------------

const cacheControl = z
  .strictObject({ type: z.literal("ephemeral"), ttl: z.enum(["5m", "1h"]).optional() })
  .nullable()
  .optional();
const anthropicTextBlock = z.strictObject({
  type: z.literal("text"),
  text: z.string().min(1),
  cache_control: cacheControl,
  citations: z.array(json).nullable().optional(),
});
const anthropicImageBlock = z.strictObject({
  type: z.literal("image"),
  source: z.discriminatedUnion("type", [
    z.strictObject({ type: z.literal("base64"), media_type: z.string(), data: z.string() }),
    z.strictObject({ type: z.literal("url"), url: z.string() }),
    z.strictObject({ type: z.literal("file"), file_id: z.string() }),
  ]),
  cache_control: cacheControl,
});
const anthropicDocumentBlock = z.strictObject({
  type: z.literal("document"),
  source: json,
  title: z.string().nullable().optional(),
  context: z.string().nullable().optional(),
  citations: json.nullable().optional(),
  cache_control: cacheControl,
});
/** Anthropic's tool names: letters, digits, underscores and dashes. */
const anthropicToolName = z.string().regex(/^[a-zA-Z0-9_-]{1,128}$/);
const anthropicBlock = z.discriminatedUnion("type", [
  anthropicTextBlock,
  anthropicImageBlock,
  anthropicDocumentBlock,
  z.strictObject({ type: z.literal("tool_use"), id: z.string(), name: anthropicToolName, input: json, cache_control: cacheControl }),
  z.strictObject({
    type: z.literal("tool_result"),
    tool_use_id: z.string(),
    content: z
      .union([z.string(), z.array(z.discriminatedUnion("type", [anthropicTextBlock, anthropicImageBlock, anthropicDocumentBlock]))])
      .optional(),
    is_error: z.boolean().optional(),
    cache_control: cacheControl,
  }),
  z.strictObject({ type: z.literal("thinking"), thinking: z.string(), signature: z.string() }),
  z.strictObject({ type: z.literal("redacted_thinking"), data: z.string() }),
]);

const anthropicTool = z.union([
  z.strictObject({
    type: z.literal("custom").optional(),
    name: anthropicToolName,
    description: z.string().optional(),
    input_schema: z.looseObject({ type: z.literal("object") }),
    cache_control: cacheControl,
    strict: z.boolean().optional(),
  }),
  // Anthropic's own tools (web_search_20250305, bash_20250124, text_editor_…): a dated type.
  z.looseObject({ type: z.string().regex(/_\d{8}$/), name: z.string() }),
]);

export const anthropicMessagesRequest = z.strictObject({
  model: z.string(),
  messages: z
    .array(z.strictObject({ role: z.enum(["user", "assistant"]), content: z.union([z.string(), z.array(anthropicBlock)]) }))
    .min(1),
  max_tokens: z.number().int().nonnegative(),
  system: z.union([z.string(), z.array(anthropicTextBlock)]).optional(),
  metadata: z.strictObject({ user_id: z.string().nullable().optional() }).optional(),
  stop_sequences: z.array(z.string()).optional(),
  stream: z.boolean().optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().nonnegative().optional(),
  tools: z.array(anthropicTool).optional(),
  tool_choice: z
    .discriminatedUnion("type", [
      z.strictObject({ type: z.literal("auto"), disable_parallel_tool_use: z.boolean().optional() }),
      z.strictObject({ type: z.literal("any"), disable_parallel_tool_use: z.boolean().optional() }),
      z.strictObject({ type: z.literal("tool"), name: z.string(), disable_parallel_tool_use: z.boolean().optional() }),
      z.strictObject({ type: z.literal("none") }),
    ])
    .optional(),
  thinking: z
    .discriminatedUnion("type", [
      z.strictObject({ type: z.literal("enabled"), budget_tokens: z.number().int().min(1024), display: z.string().optional() }),
      z.strictObject({ type: z.literal("adaptive"), display: z.string().optional() }),
      z.strictObject({ type: z.literal("disabled") }),
    ])
    .optional(),
  output_config: z
    .strictObject({ effort: z.enum(["low", "medium", "high", "xhigh", "max"]).optional(), format: json.nullable().optional() })
    .optional(),
  service_tier: z.enum(["auto", "standard_only"]).optional(),
  container: z.string().nullable().optional(),
  inference_geo: z.string().nullable().optional(),
  cache_control: cacheControl,
});

// ---------------------------------------------------------------------------------------------
// Gemini generateContent
// ---------------------------------------------------------------------------------------------

/** Gemini's function names: letters, digits, underscores, colons, dots and dashes, 64 at most. */
const geminiFunctionName = z.string().regex(/^[a-zA-Z0-9_:.-]{1,64}$/);
const GEMINI_PART_DATA = [
  "text",
  "inlineData",
  "fileData",
  "functionCall",
  "functionResponse",
  "executableCode",
  "codeExecutionResult",
] as const;
const geminiPart = z
  .strictObject({
    text: z.string().optional(),
    inlineData: z.strictObject({ mimeType: z.string(), data: z.string() }).optional(),
    fileData: z.strictObject({ mimeType: z.string().optional(), fileUri: z.string() }).optional(),
    functionCall: z.strictObject({ id: z.string().optional(), name: geminiFunctionName, args: json.optional() }).optional(),
    functionResponse: z
      .strictObject({
        id: z.string().optional(),
        name: geminiFunctionName,
        response: json,
        parts: z.array(json).optional(),
        willContinue: z.boolean().optional(),
        scheduling: z.string().optional(),
      })
      .optional(),
    executableCode: z.strictObject({ language: z.string(), code: z.string() }).optional(),
    codeExecutionResult: z.strictObject({ outcome: z.string(), output: z.string().optional() }).optional(),
    thought: z.boolean().optional(),
    thoughtSignature: z.string().optional(),
    videoMetadata: json.optional(),
    partMetadata: json.optional(),
    mediaResolution: json.optional(),
  })
  .refine((p) => GEMINI_PART_DATA.filter((k) => p[k] !== undefined).length === 1, {
    message:
      "a part carries exactly one of text, inlineData, fileData, functionCall, functionResponse, executableCode, codeExecutionResult",
  });
const geminiContent = z.strictObject({ role: z.enum(["user", "model"]).optional(), parts: z.array(geminiPart).min(1) });

const geminiTool = z.strictObject({
  functionDeclarations: z
    .array(
      z.strictObject({
        name: geminiFunctionName,
        description: z.string().optional(),
        behavior: z.enum(["UNSPECIFIED", "BLOCKING", "NON_BLOCKING"]).optional(),
        parameters: jsonSchema.optional(),
        parametersJsonSchema: jsonSchema.optional(),
        response: jsonSchema.optional(),
        responseJsonSchema: jsonSchema.optional(),
      }),
    )
    .optional(),
  googleSearch: json.optional(),
  googleSearchRetrieval: json.optional(),
  codeExecution: json.optional(),
  urlContext: json.optional(),
  computerUse: json.optional(),
  fileSearch: json.optional(),
  googleMaps: json.optional(),
});

export const geminiGenerateContentRequest = z.strictObject({
  contents: z.array(geminiContent).min(1),
  systemInstruction: geminiContent.optional(),
  tools: z.array(geminiTool).optional(),
  toolConfig: z
    .strictObject({
      functionCallingConfig: z
        .strictObject({
          mode: z.enum(["MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED"]).optional(),
          allowedFunctionNames: z.array(z.string()).optional(),
        })
        .optional(),
      retrievalConfig: json.optional(),
      includeServerSideToolInvocations: z.boolean().optional(),
    })
    .optional(),
  safetySettings: z.array(z.strictObject({ category: z.string(), threshold: z.string() })).optional(),
  cachedContent: z.string().optional(),
  generationConfig: z
    .strictObject({
      stopSequences: z.array(z.string()).max(5).optional(),
      responseMimeType: z.string().optional(),
      responseSchema: jsonSchema.optional(),
      responseJsonSchema: jsonSchema.optional(),
      responseModalities: z.array(z.string()).optional(),
      candidateCount: z.number().int().positive().optional(),
      maxOutputTokens: z.number().int().positive().optional(),
      temperature: z.number().min(0).max(2).optional(),
      topP: z.number().min(0).max(1).optional(),
      topK: z.number().int().positive().optional(),
      seed: z.number().int().optional(),
      presencePenalty: z.number().optional(),
      frequencyPenalty: z.number().optional(),
      responseLogprobs: z.boolean().optional(),
      logprobs: z.number().int().optional(),
      enableEnhancedCivicAnswers: z.boolean().optional(),
      speechConfig: json.optional(),
      thinkingConfig: z
        .strictObject({
          includeThoughts: z.boolean().optional(),
          thinkingBudget: z.number().int().optional(),
          thinkingLevel: z.enum(["THINKING_LEVEL_UNSPECIFIED", "MINIMAL", "LOW", "MEDIUM", "HIGH"]).optional(),
        })
        .optional(),
      imageConfig: json.optional(),
      mediaResolution: z.string().optional(),
    })
    .refine((g) => g.responseJsonSchema === undefined || g.responseSchema === undefined, {
      message: "responseJsonSchema and responseSchema are both set",
    })
    .refine((g) => g.responseJsonSchema === undefined || g.responseMimeType !== undefined, {
      message: "responseJsonSchema without responseMimeType",
    })
    .optional(),
});

// ---------------------------------------------------------------------------------------------
// The check
// ---------------------------------------------------------------------------------------------

export type VendorApi = "openai-chat" | "openai-responses" | "anthropic" | "gemini";

const SCHEMAS: Record<VendorApi, z.ZodType> = {
  "openai-chat": openaiChatRequest,
  "openai-responses": openaiResponsesRequest,
  anthropic: anthropicMessagesRequest,
  gemini: geminiGenerateContentRequest,
};

/** The output budget a body asks for, under the member its API names it. */
function outputBudget(api: VendorApi, body: Record<string, any>): { name: string; value: unknown } {
  switch (api) {
    case "openai-chat":
      return body.max_completion_tokens != null
        ? { name: "max_completion_tokens", value: body.max_completion_tokens }
        : { name: "max_tokens", value: body.max_tokens };
    case "openai-responses":
      return { name: "max_output_tokens", value: body.max_output_tokens };
    case "anthropic":
      return { name: "max_tokens", value: body.max_tokens };
    case "gemini":
      return { name: "generationConfig.maxOutputTokens", value: body.generationConfig?.maxOutputTokens };
  }
}

/**
 * Why a vendor would refuse `body` sent for `upstreamModel`: schema issues (path: message), an
 * output budget above the model's published limit, `max_tokens` sent to an OpenAI reasoning model.
 * Empty when the vendor would take it.
 */
export function vendorRequestProblems(api: VendorApi, body: unknown, upstreamModel: string): string[] {
  const problems: string[] = [];
  const parsed = SCHEMAS[api].safeParse(body);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(`${issue.path.join(".") || "(body)"}: ${issue.message}`);
  }
  if (typeof body !== "object" || body === null) return problems;
  const b = body as Record<string, any>;
  const budget = outputBudget(api, b);
  const limit = outputLimit(upstreamModel);
  if (limit !== null && typeof budget.value === "number" && budget.value > limit) {
    problems.push(`${budget.name}: ${budget.value} is above ${upstreamModel}'s output limit of ${limit}`);
  }
  if (api === "openai-chat" && b.max_tokens != null && takesMaxCompletionTokens(upstreamModel)) {
    problems.push(`max_tokens: ${upstreamModel} refuses it (it takes max_completion_tokens)`);
  }
  for (const [where, schema] of jsonSchemasOf(api, b)) upperCaseTypes(schema, where, problems);
  return problems;
}

/** The JSON Schemas a body carries where its vendor validates them as JSON Schema (tools, structured output). */
function jsonSchemasOf(api: VendorApi, b: Record<string, any>): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  const tools: any[] = Array.isArray(b.tools) ? b.tools : [];
  if (api === "openai-chat") {
    tools.forEach((t, i) => out.push([`tools.${i}.function.parameters`, t?.function?.parameters]));
    out.push(["response_format.json_schema.schema", b.response_format?.json_schema?.schema]);
  } else if (api === "anthropic") {
    tools.forEach((t, i) => out.push([`tools.${i}.input_schema`, t?.input_schema]));
    out.push(["output_config.format.schema", b.output_config?.format?.schema]);
  } else if (api === "gemini") {
    out.push(["generationConfig.responseJsonSchema", b.generationConfig?.responseJsonSchema]);
  }
  return out.filter(([, schema]) => schema !== undefined);
}

/** JSON Schema's type names are lower case; Google's Schema upper-case ones are no JSON Schema types. */
function upperCaseTypes(schema: unknown, where: string, problems: string[]): void {
  if (typeof schema !== "object" || schema === null) return;
  if (Array.isArray(schema)) {
    schema.forEach((s, i) => upperCaseTypes(s, `${where}.${i}`, problems));
    return;
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key === "type" && (typeof value === "string" || Array.isArray(value))) {
      const names = (Array.isArray(value) ? value : [value]).filter((t): t is string => typeof t === "string");
      if (names.some((t) => t !== t.toLowerCase())) problems.push(`${where}.type: ${JSON.stringify(value)} is not a JSON Schema type`);
    } else if (key === "properties" && typeof value === "object" && value !== null) {
      // Property names are names: only their schemas are looked into.
      for (const [name, sub] of Object.entries(value)) upperCaseTypes(sub, `${where}.properties.${name}`, problems);
    } else if (typeof value === "object") upperCaseTypes(value, `${where}.${key}`, problems);
  }
}
