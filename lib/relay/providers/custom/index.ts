// Custom channel: base_url is the complete upstream URL for every mode; "{model}" in it is
// replaced by the upstream model. Bearer key. The upstream is unknown, so stream_options is left
// as the client sent it.
import { baseHeaders, baseUrlOf, buildBody, encodeModelForPath } from "../openai-compatible";
import type { BuildRequestInput, ProviderAdapter, UpstreamRequest } from "../types";
import { RELAY_MODES } from "../../types";
import { CHANNEL_CATALOG, CHANNEL_TYPES } from "@/lib/channels/catalog";

const { name, baseUrl: defaultBaseUrl } = CHANNEL_CATALOG[CHANNEL_TYPES.Custom];

export const custom: ProviderAdapter = {
  supportedModes: new Set(RELAY_MODES),
  buildRequest(input: BuildRequestInput): UpstreamRequest {
    const url = baseUrlOf(input, defaultBaseUrl, name).split("{model}").join(encodeModelForPath(input.upstreamModel));
    const headers = baseHeaders(input);
    headers.Authorization = `Bearer ${input.channel.key}`;
    const { body, forcedIncludeUsage, dropped } = buildBody(input, { policy: "passthrough" });
    return { method: "POST", url, headers, body, forcedIncludeUsage, ...(dropped ? { dropped } : {}) };
  },
};
