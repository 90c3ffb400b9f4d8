// What OpenAI's video API (and Azure OpenAI's v1 surface, which speaks the same) sends back: the
// video object of `POST /v1/videos`, `GET /v1/videos/{id}` and a remix. Fields that are missing or
// of another type read as absent; everything else is kept as the vendor wrote it.
import { z } from "zod";
import { isObj } from "@/lib/obj";
import { finite, maybe } from "@/lib/relay/providers/wire";
import { TASK_STATUS } from "@/lib/tasks/types";

export const VendorVideo = z
  .object({
    id: maybe(z.string()),
    object: maybe(z.string()),
    model: maybe(z.string()),
    /** queued | in_progress | completed | failed. */
    status: maybe(z.string()),
    /** 0–100. */
    progress: finite,
    created_at: finite,
    completed_at: finite,
    expires_at: finite,
    seconds: maybe(z.union([z.string(), z.number()])),
    size: maybe(z.string()),
    prompt: maybe(z.string()),
    remixed_from_video_id: maybe(z.string()),
    error: maybe(z.object({ code: maybe(z.string()), message: maybe(z.string()) }).loose()),
  })
  .loose();
export type VendorVideo = z.output<typeof VendorVideo>;

/** The vendor's status as the row's (spec §4); undefined for one the API does not define. */
const ROW_STATUS: Readonly<Record<string, string>> = {
  queued: TASK_STATUS.queued,
  in_progress: TASK_STATUS.inProgress,
  completed: TASK_STATUS.success,
  failed: TASK_STATUS.failure,
};

export function rowStatusOf(vendorStatus: string | undefined): string | undefined {
  return vendorStatus !== undefined && Object.hasOwn(ROW_STATUS, vendorStatus) ? ROW_STATUS[vendorStatus] : undefined;
}

/** The row's status as OpenAI's: everything not yet running (submitted, queued, unknown) is "queued". */
export function videoStatusOf(rowStatus: string): "queued" | "in_progress" | "completed" | "failed" {
  if (rowStatus === TASK_STATUS.success) return "completed";
  if (rowStatus === TASK_STATUS.failure) return "failed";
  if (rowStatus === TASK_STATUS.inProgress) return "in_progress";
  return "queued";
}

const isAddress = (v: unknown) => typeof v === "string" && /^[a-z][a-z0-9+.-]*:\/\//i.test(v.trim());

/**
 * The vendor's JSON without any address in it, as it is stored in the row and shown back: OpenAI
 * sends none, but a proxy in front of it may add a download URL, and the vendor's addresses are
 * never shown. Members holding an address (at any depth) are dropped.
 */
export function withoutAddresses(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => !isAddress(v)).map(withoutAddresses);
  if (!isObj(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!isAddress(v)) out[k] = withoutAddresses(v);
  return out;
}
