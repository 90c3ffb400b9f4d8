// Tencent Hunyuan (type 23): `POST {base}/` with the API 3.0 headers (X-TC-Action:
// ChatCompletions, X-TC-Version: 2023-09-01, X-TC-Timestamp) and a TC3-HMAC-SHA256 Authorization
// (sign.ts) for the service "hunyuan". Key `AppId|SecretId|SecretKey` (the AppId is not used by
// API 3.0; `SecretId|SecretKey` is accepted too). Chat only: text, tools (streamed too) and images
// (hunyuan-vision; URLs passed as they are, data: URLs included).
import { CHANNEL_CATALOG, CHANNEL_TYPES as T } from "@/lib/channels/catalog";
import { RelayError } from "../../errors";
import { answerContext, canonicalBody, jsonAnswer, jsonOrSseFraming } from "../convert-shared";
import { baseUrlOf, unsupportedMode } from "../openai-compatible";
import type { BuildRequestInput, ProviderAdapter, ResponseConverter, UpstreamRequest } from "../types";
import { HunyuanStream, hunyuanToOpenAI, toHunyuanBody } from "./convert";
import { tc3Authorization } from "./sign";

const CONTENT_TYPE = "application/json";

export function splitHunyuanKey(key: string): { secretId: string; secretKey: string } {
  const parts = key.split("|").map((p) => p.trim());
  const [secretId, secretKey] = parts.length === 3 ? [parts[1]!, parts[2]!] : parts.length === 2 ? [parts[0]!, parts[1]!] : ["", ""];
  if (secretId === "" || secretKey === "") {
    throw new RelayError(500, "混元渠道的密钥格式应为 AppId|SecretId|SecretKey", { code: "channel_misconfigured", local: false });
  }
  return { secretId, secretKey };
}

export const hunyuan: ProviderAdapter = {
  supportedModes: new Set(["chat"]),
  buildRequest(input: BuildRequestInput): UpstreamRequest {
    const { name, baseUrl } = CHANNEL_CATALOG[T.Tencent];
    if (input.mode !== "chat") throw unsupportedMode(name, input.channel.type, input.mode);
    const base = baseUrlOf(input, baseUrl, name);
    const { secretId, secretKey } = splitHunyuanKey(input.channel.key);
    const body = JSON.stringify(toHunyuanBody(canonicalBody(input), input.upstreamModel, input.stream));
    const timestamp = Math.floor(Date.now() / 1000);
    const host = new URL(base).host;
    const headers: Record<string, string> = {
      "Content-Type": CONTENT_TYPE,
      "X-TC-Action": "ChatCompletions",
      "X-TC-Version": "2023-09-01",
      "X-TC-Timestamp": String(timestamp),
      Authorization: tc3Authorization({
        secretId,
        secretKey,
        service: "hunyuan",
        host,
        contentType: CONTENT_TYPE,
        payload: body,
        timestamp,
      }),
    };
    if (input.stream) headers.Accept = "text/event-stream";
    const ctx = answerContext(input.upstreamModel);
    const stream = new HunyuanStream(ctx);
    const response: ResponseConverter = {
      json: (upstream) => jsonAnswer(hunyuanToOpenAI(upstream, ctx)),
      streamEvent: (event) => stream.event(event),
    };
    return {
      method: "POST",
      url: `${base}/`,
      headers,
      body,
      forcedIncludeUsage: false,
      response,
      framing: input.stream ? jsonOrSseFraming() : undefined,
    };
  },
};
