// Reading a relay request: the body parsed (JSON, a large JSON body summarised in one go, or a
// multipart form), the model found, the endpoint's rules and the sensitive-word filter applied.
// Nothing here is priced or reserved yet (pricing.ts).
import type { ParsedBody } from "@/lib/relay/call/call-context";
import { RelayError } from "@/lib/relay/errors";
import type { RelayRequest } from "@/lib/relay/http";
import { readMultipartForm } from "@/lib/relay/request/multipart";
import { bodyFromMembers, LARGE_BODY_BYTES, parseJsonRequest, relayErrorOf, summariseJsonBody } from "@/lib/relay/request/request-body";
import { checkRequestBody, invalidRequest, requestModel } from "@/lib/relay/request/request-rules";
import { findSensitiveWord, findSensitiveWordInCaller, matcherFor, sensitiveWordError } from "@/lib/relay/request/sensitive";
import type { RelayMode } from "@/lib/relay/types";

/** `sensitiveWords`: the SensitiveWords option when prompts are checked (a large body is looked at where it is read). */
export function parseBody(
  req: RelayRequest,
  mode: RelayMode,
  defaultModel: string,
  sensitiveWords: string | null,
): ParsedBody | Promise<ParsedBody> {
  const contentType = req.headers.get("content-type") ?? "";
  if (mode === "transcriptions" || mode === "translations") {
    if (!/^multipart\/form-data/i.test(contentType)) throw new RelayError(400, "请求须为 multipart/form-data", { code: "invalid_request" });
    const form = readMultipartForm(req.body, contentType);
    if (!form)
      throw new RelayError(400, "请求体不是合法的 multipart/form-data", { type: "invalid_request_error", code: "invalid_multipart" });
    if (!form.names.has("file")) throw invalidRequest("file", "缺少 file 字段（要转写的音频文件）");
    const model = form.fields.model ?? defaultModel;
    if (model === "") throw invalidRequest("model", "model 必须是非空字符串");
    return { json: null, model, stream: false, contentType, responseFormat: form.fields.response_format };
  }
  // Clients that forget the JSON content type still get their model read (a classic new-api trap).
  if (req.body.length >= LARGE_BODY_BYTES) return parseLargeBody(req, mode, defaultModel, contentType, sensitiveWords);
  const body = parseJsonRequest(req.body);
  return {
    json: body,
    model: requestModel(body, defaultModel),
    stream: body.stream === true,
    contentType: contentType || "application/json",
  };
}

/**
 * A large JSON body: parsed, checked, estimated and walked for the count in one go, in the body
 * thread when the transport has one (the Node entry); the event loop keeps only the summary, and
 * reads a large member itself only if something asks.
 */
async function parseLargeBody(
  req: RelayRequest,
  mode: RelayMode,
  defaultModel: string,
  contentType: string,
  sensitiveWords: string | null,
): Promise<ParsedBody> {
  const read = req.summariseJsonBody
    ? await req.summariseJsonBody(mode, defaultModel, sensitiveWords)
    : summariseJsonBody(req.body, mode, defaultModel, sensitiveWords);
  if (!read.ok) throw relayErrorOf(read.error);
  const { summary } = read;
  const json = bodyFromMembers(summary.members, req.body, summary.unlisted);
  return {
    json,
    model: summary.model,
    stream: json.stream === true,
    contentType: contentType || "application/json",
    large: {
      rulesError: summary.rulesError,
      reserveTokens: summary.reserveTokens,
      prompt: summary.prompt,
      sensitiveWord: summary.sensitiveWord,
    },
  };
}

/** The endpoint's rules (request-rules.ts): checked with the rest of the reading for a large body. */
export function checkBody(mode: RelayMode, body: ParsedBody): void {
  if (body.large) {
    if (body.large.rulesError) throw relayErrorOf(body.large.rulesError);
  } else if (body.json) checkRequestBody(mode, body.json);
}

/**
 * The sensitive-word filter on the prompt (sensitive.ts), after the endpoint's rules and before
 * anything is reserved or sent: a hit is a 400 and costs nothing. `sensitiveWords` is null when
 * the filter is off (a large body was already looked at where it was read).
 */
export function checkPromptWords(sensitiveWords: string | null, body: ParsedBody): void {
  if (sensitiveWords === null) return;
  const word = body.large ? body.large.sensitiveWord : body.json ? findSensitiveWord(body.json, matcherFor(sensitiveWords)) : null;
  if (word !== null) throw sensitiveWordError(word);
}

/**
 * The sensitive-word filter on a call in another protocol: the caller's own text, read from its
 * body as it came (findSensitiveWordInCaller), so a call that passes through is never decoded for it.
 */
export function checkCallerPromptWords(sensitiveWords: string | null, body: Record<string, unknown>): void {
  if (sensitiveWords === null) return;
  const word = findSensitiveWordInCaller(body, matcherFor(sensitiveWords));
  if (word !== null) throw sensitiveWordError(word);
}
