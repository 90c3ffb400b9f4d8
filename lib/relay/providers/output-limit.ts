// The most output tokens a request may ask of a model on one channel: the channel's own figure
// (its `output_limits` column) when it names the model, else the model's published limit
// (lib/billing/output-limits.ts). Adapters clamp the canonical `max_tokens` to it on the way up,
// because vendors refuse a request that asks for more than the model can write (OpenAI answers
// 400 for `max_tokens: 128000` on gpt-4o) instead of writing what they can.
import { outputLimit } from "@/lib/billing/output-limits";
import type { Obj } from "@/lib/obj";
import type { OutputLimits } from "../types";

/**
 * The limit for `model` (the upstream model, after the channel's mapping) on `channel`: its exact
 * entry, else its `"*"` entry, else the model facts; null when none knows the model (nothing is
 * clamped then).
 */
export function channelOutputLimit(channel: { output_limits?: OutputLimits } | null | undefined, model: string): number | null {
  const own = channel?.output_limits;
  if (own) {
    if (Object.hasOwn(own, model)) return own[model]!;
    if (Object.hasOwn(own, "*")) return own["*"]!;
  }
  return outputLimit(model);
}

/**
 * The canonical body with its output cap (`max_tokens`, `max_completion_tokens`) within the limit
 * of `model` on `channel`, for the adapters that convert it into their vendor's own shape: the
 * same object when nothing needs clamping, else a shallow copy (the pipeline's body is shared).
 */
export function withinOutputLimit(json: Obj, channel: { output_limits?: OutputLimits }, model: string): Obj {
  const limit = channelOutputLimit(channel, model);
  if (limit === null) return json;
  let out = json;
  for (const key of ["max_tokens", "max_completion_tokens"]) {
    const clamped = clampOutputTokens(json[key], limit);
    if (clamped === json[key]) continue;
    if (out === json) out = { ...json };
    out[key] = clamped;
  }
  return out;
}

/** `requested` within `limit` (unchanged when either is unknown or it already fits). */
export function clampOutputTokens(requested: unknown, limit: number | null): unknown {
  if (limit === null || typeof requested !== "number" || !Number.isFinite(requested)) return requested;
  return requested > limit ? limit : requested;
}
