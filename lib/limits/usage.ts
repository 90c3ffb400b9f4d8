// A key's current use against its own limits, for the console (the token list and drawer): read
// from the same counters the relay admits against (memory, the primary of `npm start`, or Redis),
// recording nothing.
import { readKeyUsage } from "@/lib/limits/engine";
import type { KeyLimitColumns, KeyLimitUsage } from "@/lib/limits/types";

export function keyLimitUsage(token: KeyLimitColumns): Promise<KeyLimitUsage> {
  return readKeyUsage(token);
}
