// Anthropic Claude (type 14): `POST {base}/v1/messages` with `x-api-key` and
// `anthropic-version: 2023-06-01`. Chat only. The converters are exported for every channel that
// serves Claude in Anthropic's Messages shape (Bedrock, Vertex): they know no URL or credential.
//
// Callers of Anthropic's own API are served natively (`native.anthropic`): their body goes up as
// it came, bytes and all, with only `model` patched in place (patchJsonBody), and the answer passes
// through. Of the caller's headers, only those Anthropic's own clients rely on and Anthropic's API
// accepts go with it (PASSTHROUGH_HEADERS, also in docs/agents.md):
// - `anthropic-version` (Qiao's 2023-06-01 when the caller sends none) and `anthropic-beta`:
//   the API version and the beta features the body uses (Claude Code sends a dozen betas; without
//   them Anthropic refuses or ignores the body's members that need them);
// - `anthropic-dangerous-direct-browser-access`: the SDK's flag for browser use, which Claude
//   Code also sends;
// - `x-app` and `x-claude-code-session-id`: Claude Code's client and session, which Anthropic
//   reads for its own routing and limits of Claude Code traffic;
// - `user-agent` and the Stainless SDK's `x-stainless-*` headers (language, package version, OS,
//   arch, runtime, retry count, timeout, helper), the client's description of itself.
// Never forwarded: the caller's `x-api-key` and `authorization` (the channel's key is sent
// instead), cookies, and everything else (proxy and hop-by-hop headers, the caller's addresses).
import { CHANNEL_CATALOG, CHANNEL_TYPES } from "@/lib/channels/catalog";
import { patchJsonBody } from "../../request/json-body";
import type { RelayMode } from "../../types";
import { baseUrlOf, unsupportedMode } from "../openai-compatible";
import type { BuildRequestInput, ProviderAdapter, UpstreamRequest } from "../types";
import { withPromptImages } from "../../request/images";
import { channelOutputLimit } from "../output-limit";
import { claudeRequest } from "./convert-request";
import { anthropicResponseConverter } from "./convert-response";

export {
  type AnthropicMessagesOptions,
  anthropicMessages,
  type ClaudeRequest,
  claudeRequest,
  convertMessages,
  defaultMaxTokens,
  THINKING_BUDGET,
} from "./convert-request";
export { anthropicResponseConverter, anthropicToOpenAI } from "./convert-response";
export { finishReason } from "./finish-reason";
export { AnthropicStreamConverter } from "./stream";
export { anthropicUsage } from "./usage";

export const ANTHROPIC_VERSION = "2023-06-01";

/**
 * The caller's headers a passed-through call keeps (the file header says why each). The Stainless
 * headers are named one by one: an allow-list never lets a header through by its prefix alone.
 */
export const PASSTHROUGH_HEADERS: readonly string[] = [
  "anthropic-version",
  "anthropic-beta",
  "anthropic-dangerous-direct-browser-access",
  "x-app",
  "x-claude-code-session-id",
  "user-agent",
  "x-stainless-lang",
  "x-stainless-package-version",
  "x-stainless-os",
  "x-stainless-arch",
  "x-stainless-runtime",
  "x-stainless-runtime-version",
  "x-stainless-retry-count",
  "x-stainless-timeout",
  "x-stainless-helper",
  "x-stainless-helper-method",
];

const { name, baseUrl: defaultBaseUrl } = CHANNEL_CATALOG[CHANNEL_TYPES.Anthropic];
const supportedModes: ReadonlySet<RelayMode> = new Set<RelayMode>(["chat"]);

export const anthropic: ProviderAdapter = {
  supportedModes,
  buildRequest(input: BuildRequestInput): UpstreamRequest | Promise<UpstreamRequest> {
    if (!supportedModes.has(input.mode)) throw unsupportedMode(name, input.channel.type, input.mode);
    const url = `${baseUrlOf(input, defaultBaseUrl, name)}/v1/messages`;
    return withPromptImages(input, (canonical, images) => {
      const { body, dropped } = claudeRequest({ ...canonical, stream: input.stream }, input.upstreamModel, {
        images,
        outputLimit: channelOutputLimit(input.channel, input.upstreamModel),
        structuredOutput: true,
      });
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
        dropped,
      } satisfies UpstreamRequest;
    });
  },
  native: {
    /**
     * A caller of Anthropic's own Messages API (lib/relay/inbound/anthropic): its body goes up as
     * it sent it, with only the model mapped, and the allow-listed headers (see the file header);
     * the answer passes through, read by the same converter for usage and errors.
     */
    anthropic(input: BuildRequestInput): UpstreamRequest {
      const url = `${baseUrlOf(input, defaultBaseUrl, name)}/v1/messages`;
      const { body } = patchJsonBody(input.body, { model: input.upstreamModel }, { parsed: input.json });
      const headers: Record<string, string> = { "Content-Type": "application/json" };
      for (const header of PASSTHROUGH_HEADERS) {
        const value = input.callerHeaders?.get(header);
        if (value) headers[header] = value;
      }
      headers["anthropic-version"] ||= ANTHROPIC_VERSION;
      // Set last: nothing of the caller's may stand in for the channel's key.
      headers["x-api-key"] = input.channel.key;
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
