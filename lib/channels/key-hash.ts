// How a channel_keys row finds its key (server side: node:crypto).
import { createHash } from "node:crypto";

/** SHA-256 of one key of a channel, hex: channel_keys.key_hash. */
export const channelKeyHash = (key: string): string => createHash("sha256").update(key).digest("hex");
