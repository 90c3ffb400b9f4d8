// Anthropic Claude (type 14): `POST {base}/v1/messages` with `x-api-key` and
// `anthropic-version: 2023-06-01`. Chat only. The converters are exported for every channel that
// serves Claude in Anthropic's Messages shape (Bedrock, Vertex): they know no URL or credential.
// Caller headers such as `anthropic-beta` are not forwarded: the canonical request carries none.
import { CHANNEL_CATALOG, CHANNEL_TYPES } from "@/lib/channels/catalog";
import { fetchUserImage, type UserImage, UserUrlError } from "@/lib/net/fetch-url";
import { RelayError } from "../../errors";
import { parseJsonObject } from "../../json-body";
import type { RelayMode } from "../../types";
import { baseUrlOf, unsupportedMode } from "../openai-compatible";
import type { BuildRequestInput, ProviderAdapter, UpstreamRequest } from "../types";
import { anthropicMessages, remoteImageUrls } from "./convert-request";
import { anthropicResponseConverter } from "./convert-response";

export {
  type AnthropicMessagesOptions,
  anthropicMessages,
  convertMessages,
  defaultMaxTokens,
  remoteImageUrls,
  THINKING_BUDGET,
} from "./convert-request";
export { AnthropicStreamConverter, anthropicResponseConverter, anthropicToOpenAI, finishReason, openAIUsage } from "./convert-response";

export const ANTHROPIC_VERSION = "2023-06-01";

const { name, baseUrl: defaultBaseUrl } = CHANNEL_CATALOG[CHANNEL_TYPES.Anthropic];
const supportedModes: ReadonlySet<RelayMode> = new Set<RelayMode>(["chat"]);

/**
 * The canonical body (parsed) and its prompt images fetched: synchronously when there are no
 * http(s) image URLs, else a promise. A URL that cannot be fetched is the request's fault (400).
 */
export function withPromptImages<T>(
  input: BuildRequestInput,
  build: (canonical: Record<string, unknown>, images?: ReadonlyMap<string, UserImage>) => T,
): T | Promise<T> {
  const canonical = input.json ?? parseJsonObject(input.body);
  const urls = remoteImageUrls(canonical);
  if (urls.length === 0) return build(canonical);
  return Promise.all(urls.map((u) => fetchUserImage(u).then((img) => [u, img] as const))).then(
    (pairs) => build(canonical, new Map(pairs)),
    (error: unknown) => {
      if (error instanceof UserUrlError)
        throw new RelayError(400, error.message, { type: "invalid_request_error", code: "invalid_image_url" });
      throw error;
    },
  );
}

export const anthropic: ProviderAdapter = {
  supportedModes,
  buildRequest(input: BuildRequestInput): UpstreamRequest | Promise<UpstreamRequest> {
    if (!supportedModes.has(input.mode)) throw unsupportedMode(name, input.channel.type, input.mode);
    const url = `${baseUrlOf(input, defaultBaseUrl, name)}/v1/messages`;
    return withPromptImages(input, (canonical, images) => {
      const body = anthropicMessages({ ...canonical, stream: input.stream }, input.upstreamModel, { images });
      const headers: Record<string, string> = {
        "Content-Type": "application/json",
        "x-api-key": input.channel.key,
        "anthropic-version": ANTHROPIC_VERSION,
      };
      if (input.stream) headers.Accept = "text/event-stream";
      return {
        method: "POST",
        url,
        headers,
        body: JSON.stringify(body),
        forcedIncludeUsage: input.stream,
        response: anthropicResponseConverter(input.upstreamModel),
      } satisfies UpstreamRequest;
    });
  },
};
