// Zhipu GLM-4 (type 26): `{base}/api/paas/v4/chat/completions` and `/embeddings` speak OpenAI's
// protocol, so the client's body goes up nearly as sent (openai-compatible.ts), with Zhipu's
// quirks: temperature in (0, 1] and top_p in (0, 1) (values outside are clamped, not refused),
// image parts as bare base64 (a `data:` URL's prefix is removed), and no `stream_options` (its
// last chunk carries the usage anyway). Auth: `Bearer <JWT>` signed from the `id.secret` key.
import { CHANNEL_CATALOG, CHANNEL_TYPES as T } from "@/lib/channels/catalog";
import { KEEP, type JsonEdit } from "../../request/json-body";
import { baseHeaders, baseUrlOf, buildBody, unsupportedMode } from "../openai-compatible";
import { isObj } from "@/lib/obj";
import type { BuildRequestInput, ProviderAdapter, UpstreamRequest } from "../types";
import { zhipuToken } from "./token";

const PATHS = { chat: "/api/paas/v4/chat/completions", embeddings: "/api/paas/v4/embeddings" } as const;

const clampTemperature: JsonEdit = (cur: unknown) => {
  if (typeof cur !== "number") return KEEP;
  if (cur <= 0) return 0.01;
  if (cur > 1) return 1;
  return KEEP;
};

const clampTopP: JsonEdit = (cur: unknown) => {
  if (typeof cur !== "number") return KEEP;
  if (cur <= 0) return 0.01;
  if (cur >= 1) return 0.99;
  return KEEP;
};

/** `data:image/png;base64,AAAA` → `AAAA`; other URLs unchanged. */
export function zhipuImageUrl(url: string): string {
  if (!url.startsWith("data:")) return url;
  const comma = url.indexOf(",");
  return comma === -1 ? url : url.slice(comma + 1);
}

/** Rewrites the messages only when an image part holds a `data:` URL. */
const bareBase64Images: JsonEdit = (cur: unknown) => {
  if (!Array.isArray(cur)) return KEEP;
  let changed = false;
  const out = cur.map((m) => {
    if (!isObj(m) || !Array.isArray(m.content)) return m;
    const content = m.content.map((p) => {
      if (!isObj(p) || p.type !== "image_url" || !isObj(p.image_url) || typeof p.image_url.url !== "string") return p;
      if (!p.image_url.url.startsWith("data:")) return p;
      changed = true;
      return { ...p, image_url: { ...p.image_url, url: zhipuImageUrl(p.image_url.url) } };
    });
    return { ...m, content };
  });
  return changed ? out : KEEP;
};

export const zhipuV4: ProviderAdapter = {
  supportedModes: new Set(["chat", "embeddings"]),
  buildRequest(input: BuildRequestInput): UpstreamRequest {
    const { name, baseUrl } = CHANNEL_CATALOG[T.ZhipuV4];
    if (input.mode !== "chat" && input.mode !== "embeddings") throw unsupportedMode(name, input.channel.type, input.mode);
    const url = baseUrlOf(input, baseUrl, name) + PATHS[input.mode];
    const headers = baseHeaders(input);
    headers.Authorization = `Bearer ${zhipuToken(input.channel.key)}`;
    const extra: Record<string, JsonEdit> =
      input.mode === "chat" ? { temperature: clampTemperature, top_p: clampTopP, messages: bareBase64Images } : {};
    const { body, forcedIncludeUsage } = buildBody(input, { policy: "strip", extra });
    return { method: "POST", url, headers, body, forcedIncludeUsage };
  },
};
