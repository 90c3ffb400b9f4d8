// Azure OpenAI: deployment URLs, api-version, `api-key` header. Responses API callers pass
// through to its v1 surface (`native`).
import { CLOUDFLARE_AI_GATEWAY, baseHeaders, baseUrlOf, buildBody, openAIPath, unsupportedMode } from "../openai-compatible";
import { responsesPassthrough } from "../openai-responses";
import type { BuildRequestInput, ProviderAdapter, UpstreamRequest } from "../types";
import type { RelayMode } from "../../types";
import { CHANNEL_CATALOG, CHANNEL_TYPES } from "@/lib/channels/catalog";

const { name, baseUrl: defaultBaseUrl } = CHANNEL_CATALOG[CHANNEL_TYPES.Azure];

/** Used when neither the client's `?api-version=` nor the channel's `other` gives one: the catalogue's default. */
const AZURE_DEFAULT_API_VERSION = CHANNEL_CATALOG[CHANNEL_TYPES.Azure].other.default;
/** First api-version whose chat completions accept `stream_options` (2024-09-01-preview, GA 2024-10-21). */
export const AZURE_STREAM_OPTIONS_SINCE = "2024-09-01";

const MODES: readonly RelayMode[] = ["chat", "completions", "embeddings", "images", "speech", "transcriptions", "translations"];

function queryParam(q: BuildRequestInput["clientQuery"], name: string): string | null {
  if (!q) return null;
  const params = typeof q === "string" ? new URLSearchParams(q.startsWith("?") ? q.slice(1) : q) : q;
  const v = params.get(name);
  return v && v.trim() !== "" ? v.trim() : null;
}

export function azureApiVersion(input: BuildRequestInput): string {
  return queryParam(input.clientQuery, "api-version") ?? (input.channel.other || AZURE_DEFAULT_API_VERSION);
}

/** Azure deployment names cannot contain dots: "gpt-3.5-turbo" is deployed as "gpt-35-turbo". */
export function azureDeployment(model: string): string {
  return model.replace(/\./g, "");
}

const supportedModes = new Set(MODES);

export const azure: ProviderAdapter = {
  supportedModes,
  buildRequest(input: BuildRequestInput): UpstreamRequest {
    if (!supportedModes.has(input.mode)) throw unsupportedMode(name, input.channel.type, input.mode);
    const base = baseUrlOf(input, defaultBaseUrl, name);
    const version = azureApiVersion(input);
    const deployment = encodeURIComponent(azureDeployment(input.upstreamModel));
    const rest = openAIPath(input.mode, input.clientPath).replace(/^\/v1\//, "");
    const prefix = base.startsWith(CLOUDFLARE_AI_GATEWAY) ? `${base}/${deployment}` : `${base}/openai/deployments/${deployment}`;
    const url = `${prefix}/${rest}?api-version=${encodeURIComponent(version)}`;
    const headers = baseHeaders(input);
    headers["api-key"] = input.channel.key;
    // stream_options.include_usage is forced from api-version 2024-09-01 on; older api-versions reject stream_options with a 400: strip the client's (the relay synthesises the
    // usage chunk from its local count instead).
    const policy = version.slice(0, 10) >= AZURE_STREAM_OPTIONS_SINCE ? "force" : "strip";
    // Deployments are named for their model (azureDeployment), so OpenAI's rules apply by that name.
    const { body, forcedIncludeUsage, dropped } = buildBody(input, { policy, parameters: "openai" });
    return { method: "POST", url, headers, body, forcedIncludeUsage, ...(dropped ? { dropped } : {}) };
  },
  native: {
    /**
     * A Responses API caller: Azure serves that API on its v1 surface, `{base}/openai/v1/responses`,
     * which takes no api-version (the channel's is for the deployment routes) and names the
     * deployment in the body's `model`. Behind a Cloudflare AI Gateway the call is converted.
     */
    "openai-responses": (input) => {
      const base = baseUrlOf(input, defaultBaseUrl, name);
      if (base.startsWith(CLOUDFLARE_AI_GATEWAY)) return null;
      return responsesPassthrough(
        input,
        `${base}/openai/v1/responses`,
        { "api-key": input.channel.key },
        azureDeployment(input.upstreamModel),
      );
    },
  },
};
