// Building blocks shared by every OpenAI-protocol adapter, and `defineOpenAICompatible`, which
// turns a vendor's data entry (base URL, paths, quirks) into an adapter.
import { isObj } from "@/lib/obj";
import { CHANNEL_CATALOG, type ChannelType } from "@/lib/channels/catalog";
import { channelOtherProblem } from "@/lib/channels/other";
import { RelayError } from "../errors";
import { DELETE, KEEP, patchJsonBody, type JsonEdit } from "../request/json-body";
import { multipartBoundary, setMultipartField } from "../request/multipart";
import type { RelayMode } from "../types";
import { OPENAI_PATHS } from "../endpoints"; // OpenAI's path per mode: the endpoint table's
import { type ParameterPolicy, parameterEdits } from "./openai-parameters";
import type { BuildRequestInput, ProviderAdapter, StreamOptionsPolicy, UpstreamRequest } from "./types";

/** A Cloudflare AI Gateway base URL (OpenAI and Azure channels may point at one). */
export const CLOUDFLARE_AI_GATEWAY = "https://gateway.ai.cloudflare.com";

/**
 * OpenAI path for this request: the mode's canonical path, except that the images mode keeps the
 * client's operation (`/v1/images/edits`, `/v1/images/variations`). The client's path is never
 * pasted upstream otherwise (no path tricks reach the vendor).
 */
export function openAIPath(mode: RelayMode, clientPath: string): string {
  if (mode === "images") {
    const m = /\/images\/(generations|edits|variations)\/?$/.exec(clientPath);
    if (m) return `/v1/images/${m[1]}`;
  }
  return OPENAI_PATHS[mode];
}

/** The channel's base URL without trailing slashes, else the default; 500 if neither exists. */
export function baseUrlOf(input: BuildRequestInput, defaultBaseUrl: string, vendor: string): string {
  const base = (input.channel.base_url || defaultBaseUrl).trim().replace(/\/+$/, "");
  if (base === "") {
    throw new RelayError(500, `channel #${input.channel.id} (${vendor}) has no base URL configured`, { code: "channel_misconfigured" });
  }
  return base;
}

/**
 * The channel's `other` (trimmed, else `fallback`) where it becomes part of the URL; 500 unless it
 * has its type's shape (lib/channels/other): a row saved before the check or imported is refused
 * before any URL is built.
 */
export function addressOtherOf(input: BuildRequestInput, vendor: string, fallback = ""): string {
  const other = input.channel.other.trim() || fallback;
  const problem = channelOtherProblem(input.channel.type, other);
  if (problem) {
    throw new RelayError(
      500,
      `channel #${input.channel.id} (${vendor}): "other" ${JSON.stringify(other.slice(0, 80))} is refused: ${problem}`,
      {
        code: "channel_misconfigured",
        local: false,
      },
    );
  }
  return other;
}

/**
 * Encode a model name for a URL path segment while keeping '/' (Cloudflare's "@cf/meta/…" and
 * custom URLs rely on it): only characters that would break the URL structure are escaped.
 */
export function encodeModelForPath(model: string): string {
  return model.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/]/g, (c) => encodeURIComponent(c));
}

export function unsupportedMode(vendor: string, channelType: number, mode: RelayMode): RelayError {
  return new RelayError(400, `${mode} requests are not supported by this channel (${vendor}, type ${channelType})`, {
    type: "invalid_request_error",
    code: "unsupported_mode",
  });
}

export function isMultipart(contentType: string): boolean {
  return multipartBoundary(contentType) !== null;
}

/** Edit that turns on `stream_options.include_usage`, keeping the client's other stream options. */
export const forceIncludeUsage: JsonEdit = (cur: unknown) =>
  isObj(cur) && cur.include_usage === true ? KEEP : { ...(isObj(cur) ? cur : {}), include_usage: true };

export interface BodyPlan {
  policy: StreamOptionsPolicy;
  /** Extra top-level JSON edits (vendor clamps…). */
  extra?: Record<string, JsonEdit>;
  /**
   * How the vendor reads request parameters (openai-parameters.ts): the output cap is clamped to
   * the model's limit under every policy. Default "lenient".
   */
  parameters?: ParameterPolicy;
}

/**
 * The upstream body: for JSON, the client's bytes with only `model`, `stream_options`, the
 * playground's `group` and the vendor's extra edits applied (see json-body.ts); for multipart, the client's bytes with the
 * `model` field rewritten only when the channel mapped the model.
 */
export function buildBody(
  input: BuildRequestInput,
  plan: BodyPlan,
): { body: Uint8Array | string; forcedIncludeUsage: boolean; dropped?: readonly string[] } {
  if (isMultipart(input.contentType)) {
    const requestModel = input.requestModel ?? input.upstreamModel;
    if (requestModel === input.upstreamModel) return { body: input.body, forcedIncludeUsage: false };
    const bytes = typeof input.body === "string" ? new TextEncoder().encode(input.body) : input.body;
    return { body: setMultipartField(bytes, input.contentType, "model", input.upstreamModel), forcedIncludeUsage: false };
  }
  const edits: Record<string, JsonEdit> = { model: input.upstreamModel };
  let forced = false;
  const streamable = input.mode === "chat" || input.mode === "completions";
  if (plan.policy === "strip") edits.stream_options = DELETE;
  else if (plan.policy === "force" && streamable && input.stream) {
    edits.stream_options = forceIncludeUsage;
    forced = true;
  }
  const parameters = parameterEdits(input, plan.parameters ?? "lenient");
  Object.assign(edits, parameters.edits);
  if (plan.extra) Object.assign(edits, plan.extra);
  if (input.playground) edits.group = DELETE;
  const { body } = patchJsonBody(input.body, edits, { parsed: input.json });
  // The parameter edits name what they left out while the patch runs them.
  return { body, forcedIncludeUsage: forced, ...(parameters.dropped.length > 0 ? { dropped: parameters.dropped } : {}) };
}

/** Content-Type and Accept for the upstream call. */
export function baseHeaders(input: BuildRequestInput): Record<string, string> {
  const h: Record<string, string> = { "Content-Type": input.contentType || "application/json" };
  if (input.stream) h.Accept = "text/event-stream";
  return h;
}

// ---------------------------------------------------------------------------------------------
// Data-driven adapters
// ---------------------------------------------------------------------------------------------

/** A vendor's quirks; its name and default base URL are the catalogue's entry for its type. */
export interface OpenAICompatibleSpec {
  modes: readonly RelayMode[];
  streamOptions: StreamOptionsPolicy;
  /** Path per mode, appended to the base URL. Default: OpenAI's (`OPENAI_PATHS`). */
  paths?: Partial<Record<RelayMode, string>>;
  /** "bearer" (default): `Authorization: Bearer <key>`; "none": no credentials sent. */
  auth?: "bearer" | "none";
  /** Vendor headers (organization, feature flags). */
  headers?(input: BuildRequestInput): Record<string, string> | undefined;
  /** Vendor body edits (clamps, renames). */
  edits?(input: BuildRequestInput): Record<string, JsonEdit> | undefined;
  /** How the vendor reads request parameters (see BodyPlan.parameters). Default "lenient". */
  parameters?: ParameterPolicy;
  /** Full control of the URL when paths are not enough. */
  url?(input: BuildRequestInput, base: string, path: string): string;
}

export function defineOpenAICompatible(type: ChannelType, spec: OpenAICompatibleSpec): ProviderAdapter {
  const modes = new Set(spec.modes);
  const { name, baseUrl: defaultBaseUrl } = CHANNEL_CATALOG[type];
  return {
    supportedModes: modes,
    buildRequest(input: BuildRequestInput): UpstreamRequest {
      if (!modes.has(input.mode)) throw unsupportedMode(name, input.channel.type, input.mode);
      const base = baseUrlOf(input, defaultBaseUrl, name);
      const path = spec.paths?.[input.mode] ?? openAIPath(input.mode, input.clientPath);
      const url = spec.url ? spec.url(input, base, path) : base + path;
      const headers = baseHeaders(input);
      if ((spec.auth ?? "bearer") === "bearer") headers.Authorization = `Bearer ${input.channel.key}`;
      const extraHeaders = spec.headers?.(input);
      if (extraHeaders) Object.assign(headers, extraHeaders);
      const { body, forcedIncludeUsage, dropped } = buildBody(input, {
        policy: spec.streamOptions,
        extra: spec.edits?.(input),
        parameters: spec.parameters,
      });
      return { method: "POST", url, headers, body, forcedIncludeUsage, ...(dropped ? { dropped } : {}) };
    },
  };
}
