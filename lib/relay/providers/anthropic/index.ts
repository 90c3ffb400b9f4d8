// Anthropic Claude (type 14): `POST {base}/v1/messages` with `x-api-key` and
// `anthropic-version: 2023-06-01`. Chat only. The converters are exported for every channel that
// serves Claude in Anthropic's Messages shape (Bedrock, Vertex): they know no URL or credential.
// Callers of Anthropic's own API are served natively (`native.anthropic`): their request goes up
// as sent, with their `anthropic-version` and `anthropic-beta`, and the answer passes through.
import { CHANNEL_CATALOG, CHANNEL_TYPES } from "@/lib/channels/catalog";
import { patchJsonBody } from "../../request/json-body";
import type { RelayMode } from "../../types";
import { baseUrlOf, unsupportedMode } from "../openai-compatible";
import type { BuildRequestInput, ProviderAdapter, UpstreamRequest } from "../types";
import { withPromptImages } from "../../request/images";
import { anthropicMessages } from "./convert-request";
import { anthropicResponseConverter } from "./convert-response";

export {
  type AnthropicMessagesOptions,
  anthropicMessages,
  convertMessages,
  defaultMaxTokens,
  THINKING_BUDGET,
} from "./convert-request";
export { anthropicResponseConverter, anthropicToOpenAI } from "./convert-response";
export { finishReason } from "./finish-reason";
export { AnthropicStreamConverter } from "./stream";
export { anthropicUsage } from "./usage";

export const ANTHROPIC_VERSION = "2023-06-01";

const { name, baseUrl: defaultBaseUrl } = CHANNEL_CATALOG[CHANNEL_TYPES.Anthropic];
const supportedModes: ReadonlySet<RelayMode> = new Set<RelayMode>(["chat"]);

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
  native: {
    /**
     * A caller of Anthropic's own Messages API (lib/relay/inbound/anthropic): its body goes up as
     * it sent it, with only the model mapped, and its `anthropic-version` and `anthropic-beta`
     * headers; the answer passes through, read by the same converter for usage and errors.
     */
    anthropic(input: BuildRequestInput): UpstreamRequest {
      const url = `${baseUrlOf(input, defaultBaseUrl, name)}/v1/messages`;
      const { body } = patchJsonBody(input.body, { model: input.upstreamModel }, { parsed: input.json });
      const headers: Record<string, string> = {
        "Content-Type": "application/json",
        "x-api-key": input.channel.key,
        "anthropic-version": input.callerHeaders?.get("anthropic-version") || ANTHROPIC_VERSION,
      };
      const beta = input.callerHeaders?.get("anthropic-beta");
      if (beta) headers["anthropic-beta"] = beta;
      if (input.stream) headers.Accept = "text/event-stream";
      return {
        method: "POST",
        url,
        headers,
        body,
        forcedIncludeUsage: input.stream,
        response: anthropicResponseConverter(input.upstreamModel),
        passthrough: true,
      };
    },
  },
};
