// Usage buckets of the data dashboard (`quota_data`): one row per user, model and bucket, where a
// bucket is `DataExportInterval` minutes wide and starts at a multiple of that width since the
// epoch. The relay asks for a bucket when it settles a request (the option as it is at that
// moment, so a change applies to the next request without a restart); the ledger adds the request
// to it in the same transaction as the request's log row and counters, with one upsert
// (`… ON CONFLICT DO UPDATE SET count = count + excluded.count …`), so several instances writing
// into one bucket add up exactly and a crash loses nothing the log kept.
import type { OptionValues } from "@/lib/options/registry";

/** The bucket a settled request is added to: its start (Unix seconds) and whose it is. */
export type UsageBucket = { createdAt: number; username: string };

/** The start of the `intervalMinutes`-wide bucket holding `seconds`; widths under a minute read as one. */
export function bucketStart(seconds: number, intervalMinutes: number): number {
  const width = Math.max(1, Math.floor(intervalMinutes) || 1) * 60;
  return seconds - (((seconds % width) + width) % width);
}

/** The bucket for usage at `seconds`, or null when DataExportEnabled is off (nothing is recorded). */
export function usageBucket(
  options: Pick<OptionValues, "DataExportEnabled" | "DataExportInterval">,
  username: string,
  seconds: number,
): UsageBucket | null {
  if (!options.DataExportEnabled) return null;
  return { createdAt: bucketStart(seconds, options.DataExportInterval), username };
}
