// The content types a relay answer may carry. The relay answers on the console's origin, and a
// cross-site form can make a browser POST to it (`?key=`, text/plain bodies), so an upstream's
// text/html must never come back as such: each endpoint answers only with what it produces
// (JSON, audio for speech, plain text or subtitles for transcripts in text formats; streams are
// always text/event-stream), and every answer says `X-Content-Type-Options: nosniff`.
import type { RelayMode } from "../types";

export const NOSNIFF_HEADER = "x-content-type-options";
export const NOSNIFF = "nosniff";

export const JSON_TYPE = "application/json";
const TEXT_TYPE = "text/plain; charset=utf-8";
const VTT_TYPE = "text/vtt; charset=utf-8";
const SRT_TYPE = "application/x-subrip; charset=utf-8";
const OCTET_TYPE = "application/octet-stream";

/** The media type alone, lower case: "Text/HTML; charset=x" → "text/html". */
function mediaType(contentType: string): string {
  // The usual answer, "application/json" with or without parameters, without a string copy.
  if (contentType === JSON_TYPE || (contentType.startsWith(JSON_TYPE) && contentType[JSON_TYPE.length] === ";")) return JSON_TYPE;
  const semi = contentType.indexOf(";");
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

const isMarkup = (t: string) => t.includes("html") || t.includes("xml") || t.includes("javascript") || t === "text/css";

/** Markup a browser would render or run: never relayed, whatever the endpoint. */
export function isMarkupType(contentType: string): boolean {
  return isMarkup(mediaType(contentType));
}

const isJsonType = (t: string) => t === JSON_TYPE || t === "text/json" || t.endsWith("+json");

/** Whether the first byte that is not whitespace opens a JSON object or array. */
export function looksLikeJson(body: Uint8Array | string): boolean {
  const text = typeof body === "string";
  for (let i = 0; i < body.length; i++) {
    const c = text ? body.charCodeAt(i) : (body as Uint8Array)[i];
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    return c === 0x7b || c === 0x5b;
  }
  return false;
}

/**
 * The content type to answer a whole (non-streamed) relay call with, given what the upstream
 * (or Qiao's adapter) said and the body it sent; null when that is not something this endpoint
 * produces (an HTML page from a proxy or a login portal, XML, a JSON endpoint answering text).
 * Lenient where vendors are sloppy but the body is right: JSON labelled text/plain, or with no
 * type at all, is answered as application/json.
 */
export function answerContentType(
  mode: RelayMode,
  contentType: string,
  body: Uint8Array | string,
  responseFormat: string | undefined,
): string | null {
  const t = mediaType(contentType);
  if (t !== JSON_TYPE && isMarkup(t)) return null; // (the test costs ~0.1 µs; JSON skips it)
  if (mode === "speech") {
    if (/^audio\/[a-z0-9.+-]+$/.test(t)) return t;
    return t === OCTET_TYPE ? OCTET_TYPE : null;
  }
  if (mode === "transcriptions" || mode === "translations") {
    const format = (responseFormat ?? "json").toLowerCase();
    if (!format.endsWith("json") && !isJsonType(t)) {
      if (t === "" || t === "text/plain" || t === "text/vtt" || t === "application/x-subrip" || t === "text/srt") {
        return format === "vtt" ? VTT_TYPE : format === "srt" && t === "application/x-subrip" ? SRT_TYPE : TEXT_TYPE;
      }
      return null;
    }
  }
  if (t !== "" && t !== "text/plain" && !isJsonType(t)) return null;
  return looksLikeJson(body) ? JSON_TYPE : null;
}
