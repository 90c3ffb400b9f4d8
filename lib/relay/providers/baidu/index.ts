// Baidu Wenxin / 千帆 (type 15). The key decides how it authenticates:
// - `API Key|Secret Key` (the catalogue's format): exchanged for an access token (token.ts),
//   then `{base}/rpc/2.0/ai_custom/v1/wenxinworkshop/{chat|embeddings}/{endpoint}?access_token=…`
//   in Baidu's own shapes (convert-request.ts, convert-response.ts);
// - one value without "|": taken as a ready access token, same URLs (it is not refreshed).
// A base URL on qianfan.baidubce.com is the v2 API, OpenAI-compatible: `{base}/v2/chat/completions`
// and `/v2/embeddings` with `Authorization: Bearer <key>`, the body passed through.
import { CHANNEL_CATALOG, CHANNEL_TYPES as T } from "@/lib/channels/catalog";
import { baseHeaders, baseUrlOf, buildBody, unsupportedMode } from "../openai-compatible";
import { isObj, type Obj } from "@/lib/obj";
import { answerContext, canonicalBody, jsonAnswer, jsonOrSseFraming, num } from "../convert-shared";
import type { BuildRequestInput, ProviderAdapter, ResponseConverter, UpstreamRequest } from "../types";
import { baiduEndpoint, toBaiduChatBody, toBaiduEmbeddingBody } from "./convert-request";
import { BAIDU_TOKEN_ERRORS, baiduChatToOpenAI, baiduEmbeddingsToOpenAI, baiduEventToOpenAI } from "./convert-response";
import { baiduAccessToken, dropBaiduToken } from "./token";

const QIANFAN_V2 = /^https?:\/\/qianfan\.baidubce\.com(\/|$)/i;

function qianfanV2(input: BuildRequestInput, base: string): UpstreamRequest {
  const headers = baseHeaders(input);
  headers.Authorization = `Bearer ${input.channel.key}`;
  const { body, forcedIncludeUsage } = buildBody(input, { policy: "passthrough" });
  return {
    method: "POST",
    url: `${base}/v2/${input.mode === "chat" ? "chat/completions" : "embeddings"}`,
    headers,
    body,
    forcedIncludeUsage,
  };
}

/** The Wenxin body, converted before any token is fetched (a bad request costs no token call). */
function wenxinBody(input: BuildRequestInput): string {
  const json = canonicalBody(input);
  return JSON.stringify(input.mode === "chat" ? toBaiduChatBody(json, input.stream) : toBaiduEmbeddingBody(json));
}

/** `cachedFor`: the channel key whose cached token this is (dropped when Baidu refuses it). */
function wenxin(input: BuildRequestInput, base: string, body: string, token: string, cachedFor: string | null): UpstreamRequest {
  const chat = input.mode === "chat";
  const url = `${base}/rpc/2.0/ai_custom/v1/wenxinworkshop/${chat ? "chat" : "embeddings"}/${encodeURIComponent(baiduEndpoint(input.upstreamModel))}?access_token=${encodeURIComponent(token)}`;
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (input.stream) headers.Accept = "text/event-stream";
  const ctx = answerContext(input.upstreamModel);
  // An invalid or expired token (110/111) is forgotten, so the next request fetches a new one.
  const seen = (answer: Obj): Obj => {
    if (cachedFor !== null && isObj(answer.error) && BAIDU_TOKEN_ERRORS.has(num(answer.error.code) ?? 0))
      dropBaiduToken(base, cachedFor, token);
    return answer;
  };
  const response: ResponseConverter = {
    json: (upstream) => jsonAnswer(seen(chat ? baiduChatToOpenAI(upstream, ctx) : baiduEmbeddingsToOpenAI(upstream, input.upstreamModel))),
    streamEvent: (event) => {
      const out = baiduEventToOpenAI(event, ctx);
      return out ? seen(out) : null;
    },
  };
  return {
    method: "POST",
    url,
    headers,
    body,
    forcedIncludeUsage: false,
    response,
    framing: input.stream ? jsonOrSseFraming() : undefined,
  };
}

export const baidu: ProviderAdapter = {
  supportedModes: new Set(["chat", "embeddings"]),
  buildRequest(input: BuildRequestInput): UpstreamRequest | Promise<UpstreamRequest> {
    const { name, baseUrl } = CHANNEL_CATALOG[T.Baidu];
    if (input.mode !== "chat" && input.mode !== "embeddings") throw unsupportedMode(name, input.channel.type, input.mode);
    const base = baseUrlOf(input, baseUrl, name);
    if (QIANFAN_V2.test(base)) return qianfanV2(input, base);
    const key = input.channel.key.trim();
    const body = wenxinBody(input);
    if (!key.includes("|")) return wenxin(input, base, body, key, null);
    const token = baiduAccessToken(base, key, input.dispatcher);
    return typeof token === "string" ? wenxin(input, base, body, token, key) : token.then((t) => wenxin(input, base, body, t, key));
  },
};
