// The Gemini requests answered without a model call: the caller's model list (`GET
// /v1beta/models`, `GET /v1beta/models/{model}`) and a local token count (`:countTokens`), both
// authenticated by the caller's key and free.
import { nestsTooDeep, tooDeep } from "@/lib/relay/request/json-depth";
import { authenticateKey, checkModelAllowed, keyCaller } from "@/lib/relay/memory/key-auth";
import type { RelayRequest, RelayResponse } from "@/lib/relay/http";
import { callerModels } from "@/lib/relay/call/models-and-billing";
import { countRequestPromptTokens } from "@/lib/relay/openai/token-count";
import { bareModel, decodeGenerateContent, invalid, proto } from "./decode-request";
import { geminiError } from "./encode-response";
import { isObj, type Obj } from "@/lib/obj";

/** What every listed model offers through this protocol. */
const GENERATION_METHODS = ["generateContent", "streamGenerateContent", "countTokens"];

const json = (status: number, body: unknown, requestId: string): RelayResponse => ({
  status,
  headers: { "content-type": "application/json", "x-oneapi-request-id": requestId },
  body: JSON.stringify(body),
});

const modelItem = (id: string) => ({
  name: `models/${id}`,
  baseModelId: id,
  version: "001",
  displayName: id,
  supportedGenerationMethods: GENERATION_METHODS,
});

/**
 * `GET /v1beta/models`: the models the key may call, as Google lists them. `pageSize` pages the
 * list (`nextPageToken` is the next page's offset); without it the whole list comes at once.
 */
export async function serveModelList(req: RelayRequest, requestId: string): Promise<RelayResponse> {
  const models = await callerModels(await authenticateKey(req));
  const size = Number(req.query.get("pageSize") ?? "0");
  const start = Number(req.query.get("pageToken") || "0");
  if (!Number.isInteger(size) || size < 0) throw invalid("pageSize must be a non-negative integer");
  if (!Number.isInteger(start) || start < 0) throw invalid("pageToken is not one this server gave");
  const page = size > 0 ? models.slice(start, start + size) : models.slice(start);
  const out: Obj = { models: page.map(modelItem) };
  if (size > 0 && start + size < models.length) out.nextPageToken = String(start + size);
  return json(200, out, requestId);
}

/** `GET /v1beta/models/{model}`: one model the key may call; 404 NOT_FOUND for any other. */
export async function serveModel(req: RelayRequest, model: string, requestId: string): Promise<RelayResponse> {
  const models = await callerModels(await authenticateKey(req));
  if (!models.includes(model)) {
    return json(404, geminiError(404, `models/${model} is not found (request id: ${requestId})`), requestId);
  }
  return json(200, modelItem(model), requestId);
}

/**
 * `POST /v1beta/models/{model}:countTokens`: the prompt's tokens counted here, with the relay's
 * tokenizer, for `contents` or a whole `generateContentRequest`. Nothing is billed or logged.
 */
export async function serveCountTokens(req: RelayRequest, model: string, requestId: string): Promise<RelayResponse> {
  const caller = await keyCaller(req);
  if (nestsTooDeep(req.body)) throw tooDeep();
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(req.body).toString("utf8"));
  } catch {
    throw invalid("the request body is not valid JSON");
  }
  if (!isObj(body)) throw invalid("the request body must be a JSON object");
  const request = proto(body).generateContentRequest;
  if (request !== undefined && !isObj(request)) throw invalid("generateContentRequest must be an object");
  const canonical = decodeGenerateContent(request ?? { contents: body.contents }, {
    model: model || (typeof request?.model === "string" ? bareModel(request.model) : undefined),
  });
  const name = canonical.model as string;
  checkModelAllowed(caller, name);
  return json(200, { totalTokens: countRequestPromptTokens("chat", canonical, name) }, requestId);
}
