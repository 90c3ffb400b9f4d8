// AWS Claude on Bedrock (type 33). Key `AccessKey|SecretAccessKey|Region` (the catalogue's key
// format). `POST https://bedrock-runtime.{region}.amazonaws.com/model/{modelId}/invoke`, or
// `/invoke-with-response-stream` for streams, signed with SigV4 (service `bedrock`). The body is
// Anthropic's Messages body without `model`, `stream` and `metadata` (Bedrock refuses fields it
// does not know), plus `anthropic_version: "bedrock-2023-05-31"`. Answers are Anthropic's; streams
// arrive as AWS event-stream frames, turned into Anthropic's events by the framing.
// A channel base URL, when set, replaces the regional endpoint (a VPC endpoint, a test server).
import { CHANNEL_CATALOG, CHANNEL_TYPES } from "@/lib/channels/catalog";
import { RelayError } from "../../errors";
import type { RelayMode } from "../../types";
import { withPromptImages } from "../../request/images";
import { anthropicResponseConverter, claudeRequest } from "../anthropic";
import { channelOutputLimit } from "../output-limit";
import { unsupportedMode } from "../openai-compatible";
import type { BuildRequestInput, ProviderAdapter, UpstreamRequest } from "../types";
import { bedrockEventStreamFraming } from "./eventstream";
import { signV4, type SigV4Credentials } from "./sigv4";

export const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";

/** Claude names → Bedrock model ids. Other names (ids, inference profiles) pass through. */
export const BEDROCK_MODEL_IDS: Readonly<Record<string, string>> = {
  "claude-instant-1.2": "anthropic.claude-instant-v1",
  "claude-2.0": "anthropic.claude-v2",
  "claude-2.1": "anthropic.claude-v2:1",
  "claude-3-sonnet-20240229": "anthropic.claude-3-sonnet-20240229-v1:0",
  "claude-3-opus-20240229": "anthropic.claude-3-opus-20240229-v1:0",
  "claude-3-haiku-20240307": "anthropic.claude-3-haiku-20240307-v1:0",
  "claude-3-5-sonnet-20240620": "anthropic.claude-3-5-sonnet-20240620-v1:0",
  "claude-3-5-sonnet-20241022": "anthropic.claude-3-5-sonnet-20241022-v2:0",
  "claude-3-5-haiku-20241022": "anthropic.claude-3-5-haiku-20241022-v1:0",
};

export function bedrockModelId(model: string): string {
  return Object.hasOwn(BEDROCK_MODEL_IDS, model) ? BEDROCK_MODEL_IDS[model]! : model;
}

const { name } = CHANNEL_CATALOG[CHANNEL_TYPES.AWS];
const supportedModes: ReadonlySet<RelayMode> = new Set<RelayMode>(["chat"]);

/** `AK|SK|Region` → credentials and region; a malformed key is the channel's fault. */
export function parseBedrockKey(input: BuildRequestInput): SigV4Credentials & { region: string } {
  const parts = input.channel.key.split("|").map((p) => p.trim());
  if (parts.length !== 3 || parts.some((p) => p === "") || !/^[a-z0-9-]+$/.test(parts[2]!)) {
    throw new RelayError(500, `channel #${input.channel.id} (${name}) key must be AccessKey|SecretAccessKey|Region`, {
      code: "channel_misconfigured",
      local: false,
    });
  }
  return { accessKeyId: parts[0]!, secretAccessKey: parts[1]!, region: parts[2]! };
}

export const bedrock: ProviderAdapter = {
  supportedModes,
  buildRequest(input: BuildRequestInput): UpstreamRequest | Promise<UpstreamRequest> {
    if (!supportedModes.has(input.mode)) throw unsupportedMode(name, input.channel.type, input.mode);
    const { region, ...creds } = parseBedrockKey(input);
    const base = input.channel.base_url.trim().replace(/\/+$/, "") || `https://bedrock-runtime.${region}.amazonaws.com`;
    const action = input.stream ? "invoke-with-response-stream" : "invoke";
    const url = new URL(`${base}/model/${encodeURIComponent(bedrockModelId(input.upstreamModel))}/${action}`);
    return withPromptImages(input, (canonical, images) => {
      const { body: claude, dropped } = claudeRequest(canonical, input.upstreamModel, {
        images,
        outputLimit: channelOutputLimit(input.channel, input.upstreamModel),
      });
      const { model: _model, stream: _stream, metadata: _metadata, ...rest } = claude;
      const body = JSON.stringify({ anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...rest });
      const headers = {
        "content-type": "application/json",
        accept: input.stream ? "application/vnd.amazon.eventstream" : "application/json",
      };
      const signed = signV4({ method: "POST", url, headers, body, region, service: "bedrock" }, creds);
      return {
        method: "POST",
        url: url.href,
        headers: signed.headers,
        body,
        forcedIncludeUsage: input.stream,
        response: anthropicResponseConverter(input.upstreamModel),
        framing: input.stream ? bedrockEventStreamFraming() : undefined,
        dropped,
      } satisfies UpstreamRequest;
    });
  },
};
