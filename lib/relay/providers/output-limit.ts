// The output limit a channel's model is held to: the catalogue's fact for the model
// (lib/billing/output-limits.ts). A channel may serve a model under other limits than the vendor's
// own (a proxy, a smaller deployment); a per-channel override replaces this body.
import { outputLimit } from "@/lib/billing/output-limits";

/** The most tokens one answer of `model` may hold on `channel`, or null when nothing says. */
export function channelOutputLimit(_channel: { outputLimits?: Record<string, number> } | unknown, model: string): number | null {
  return outputLimit(model);
}
