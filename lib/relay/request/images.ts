// Prompt images for vendors that need their bytes (Gemini, Claude, Bedrock…): adapters call
// relayImage instead of fetchUserImage, so that a URL the guard refuses or cannot fetch is the
// request's own fault — a 400 `invalid_image_url` in the caller's error shape, never retried on
// another channel and never a 500.
import { isObj, type Obj } from "@/lib/obj";
import { fetchUserImage, type UserImage, UserUrlError } from "@/lib/net/fetch-url";
import { RelayError } from "@/lib/relay/errors";
import { parseJsonObject } from "@/lib/relay/request/json-body";
import type { BuildRequestInput } from "@/lib/relay/providers/types";

export const INVALID_IMAGE_URL = "invalid_image_url";

/** The bytes of a prompt image (data: or http(s) URL, through the SSRF guard); a refusal is a local 400 RelayError. */
export async function relayImage(url: string): Promise<UserImage> {
  try {
    return await fetchUserImage(url);
  } catch (error) {
    if (error instanceof UserUrlError)
      throw new RelayError(400, error.message, { type: "invalid_request_error", code: INVALID_IMAGE_URL, param: "messages" });
    throw error;
  }
}

/** The URL of an OpenAI `image_url` part (`{image_url: {url}}` or the bare string form). */
export function imageUrlOf(part: Obj): string | null {
  const iu = part.image_url;
  if (typeof iu === "string") return iu;
  return isObj(iu) && typeof iu.url === "string" ? iu.url : null;
}

/**
 * The image URLs of a canonical chat body's messages, each once: the http(s) ones, and with
 * `withData` the data: ones too (for a converter that reads every image from the fetched map).
 */
export function remoteImageUrls(canonical: Obj, withData = false): string[] {
  const out = new Set<string>();
  const messages = Array.isArray(canonical.messages) ? canonical.messages : [];
  for (const m of messages) {
    if (!isObj(m) || !Array.isArray(m.content)) continue;
    for (const part of m.content) {
      const url = isObj(part) && part.type === "image_url" ? imageUrlOf(part) : null;
      if (url && (/^https?:\/\//i.test(url) || (withData && /^data:/i.test(url)))) out.add(url);
    }
  }
  return [...out];
}

/**
 * The canonical body (parsed) with its prompt images fetched, for a vendor that needs their bytes:
 * synchronously when there are no http(s) image URLs (the usual request stays synchronous), else
 * a promise. An image that cannot be had is the request's 400 (relayImage).
 */
export function withPromptImages<T>(
  input: BuildRequestInput,
  build: (canonical: Obj, images?: ReadonlyMap<string, UserImage>) => T,
  opts: { withData?: boolean } = {},
): T | Promise<T> {
  const canonical = input.json ?? parseJsonObject(input.body);
  const urls = remoteImageUrls(canonical, opts.withData);
  if (urls.length === 0) return build(canonical);
  return Promise.all(urls.map((u) => relayImage(u).then((img) => [u, img] as const))).then((pairs) => build(canonical, new Map(pairs)));
}
