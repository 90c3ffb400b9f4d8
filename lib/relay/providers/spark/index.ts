// iFlytek Spark (讯飞星火): chat over a WebSocket, `wss://spark-api.xf-yun.com/{version}/chat`
// with the signed query (auth.ts). The key is `APPID|APISecret|APIKey`; the version comes from
// the model name (`SparkDesk-v3.5`), else the channel's `other`. The transport is the adapter's
// own (`open`, exchange.ts); the frames convert like any vendor's events (convert.ts).
import { CHANNEL_CATALOG, CHANNEL_TYPES } from "@/lib/channels/catalog";
import { RelayError } from "../../errors";
import type { RelayMode } from "../../types";
import { answerContext, jsonAnswer } from "../convert-shared";
import { chatRequest } from "../flat-chat";
import { baseUrlOf, unsupportedMode } from "../openai-compatible";
import type { BuildRequestInput, ProviderAdapter, UpstreamRequest } from "../types";
import { parseSparkKey, signSparkUrl, sparkVersion } from "./auth";
import { SparkStream, sparkToOpenAI, toSparkFrame } from "./convert";
import { SparkExchange } from "./exchange";

const { name, baseUrl: defaultBaseUrl, keyFormat } = CHANNEL_CATALOG[CHANNEL_TYPES.Xunfei];
const supportedModes = new Set<RelayMode>(["chat"]);

/** The channel's base URL as a WebSocket origin (https → wss, http → ws). */
function wsBase(input: BuildRequestInput): string {
  return baseUrlOf(input, defaultBaseUrl, name).replace(/^http(s?):\/\//i, (_, s: string) => `ws${s}://`);
}

export const spark: ProviderAdapter = {
  supportedModes,
  buildRequest(input: BuildRequestInput): UpstreamRequest {
    if (!supportedModes.has(input.mode)) throw unsupportedMode(name, input.channel.type, input.mode);
    const key = parseSparkKey(input.channel.key);
    if (!key) {
      throw new RelayError(500, `channel #${input.channel.id} (${name}) needs its key as ${keyFormat}`, {
        code: "channel_misconfigured",
        local: false,
      });
    }
    const version = sparkVersion(input.upstreamModel, input.channel.other);
    const { json, messages } = chatRequest(input);
    const frame = JSON.stringify(toSparkFrame(json, messages, key.appId, version.domain));
    const url = signSparkUrl(`${wsBase(input)}${version.path}`, key);
    const ids = answerContext(input.upstreamModel);
    const stream = new SparkStream(ids);
    return {
      method: "POST",
      url,
      headers: {},
      body: frame,
      forcedIncludeUsage: false,
      response: {
        json: (upstream) => jsonAnswer(sparkToOpenAI(upstream, ids)),
        streamEvent: (data) => stream.event(data),
      },
      open: (dispatcher) => new SparkExchange(dispatcher, url, frame, input.stream),
    };
  },
};
