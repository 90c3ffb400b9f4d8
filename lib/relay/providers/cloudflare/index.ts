// Cloudflare Workers AI. The account id lives in the channel's `other`. Chat and embeddings use
// the OpenAI-compatible endpoints; completions and speech-to-text go through `ai/run/{model}`
// with converted bodies and answers.
import { CHANNEL_CATALOG, CHANNEL_TYPES } from "@/lib/channels/catalog";
import { newRequestId, RelayError } from "../../errors";
import { readMultipartField } from "../../request/multipart";
import type { RelayMode } from "../../types";
import { addressOtherOf, baseHeaders, baseUrlOf, buildBody, encodeModelForPath, unsupportedMode } from "../openai-compatible";
import type { BuildRequestInput, ProviderAdapter, UpstreamRequest } from "../types";
import { toRunCompletionBody, toRunTranscriptionBody } from "./convert-request";
import { runCompletionEventToOpenAI, runCompletionToOpenAI, runTranscriptionToOpenAI, type RunContext } from "./convert-response";

const { name, baseUrl: defaultBaseUrl } = CHANNEL_CATALOG[CHANNEL_TYPES.Cloudflare];
const MODES: readonly RelayMode[] = ["chat", "embeddings", "completions", "transcriptions"];
const supportedModes = new Set(MODES);

function accountBase(input: BuildRequestInput): string {
  const account = addressOtherOf(input, name);
  if (account === "") {
    throw new RelayError(500, `channel #${input.channel.id} (${name}) needs its account id in the "other" field`, {
      code: "channel_misconfigured",
    });
  }
  return `${baseUrlOf(input, defaultBaseUrl, name)}/client/v4/accounts/${encodeURIComponent(account)}/ai`;
}

export const cloudflare: ProviderAdapter = {
  supportedModes,
  buildRequest(input: BuildRequestInput): UpstreamRequest {
    if (!supportedModes.has(input.mode)) throw unsupportedMode(name, input.channel.type, input.mode);
    const base = accountBase(input);
    const headers = baseHeaders(input);
    headers.Authorization = `Bearer ${input.channel.key}`;
    if (input.mode === "chat" || input.mode === "embeddings") {
      const { body, forcedIncludeUsage } = buildBody(input, { policy: "force" });
      const url = `${base}/v1/${input.mode === "chat" ? "chat/completions" : "embeddings"}`;
      return { method: "POST", url, headers, body, forcedIncludeUsage };
    }
    const url = `${base}/run/${encodeModelForPath(input.upstreamModel)}`;
    const ctx: RunContext = { id: `cmpl-${newRequestId()}`, created: Math.floor(Date.now() / 1000), model: input.upstreamModel };
    if (input.mode === "completions") {
      headers["Content-Type"] = "application/json";
      return {
        method: "POST",
        url,
        headers,
        body: toRunCompletionBody(input),
        forcedIncludeUsage: false,
        response: {
          json: (upstream) => ({ body: JSON.stringify(runCompletionToOpenAI(upstream, ctx)), contentType: "application/json" }),
          streamEvent: (data) => runCompletionEventToOpenAI(data, ctx),
        },
      };
    }
    // transcriptions
    const bytes = typeof input.body === "string" ? new TextEncoder().encode(input.body) : input.body;
    const format = readMultipartField(bytes, input.contentType, "response_format");
    const run = toRunTranscriptionBody(input);
    headers["Content-Type"] = run.contentType;
    return {
      method: "POST",
      url,
      headers,
      body: run.body,
      forcedIncludeUsage: false,
      response: { json: (upstream) => runTranscriptionToOpenAI(upstream, format) },
    };
  },
};
