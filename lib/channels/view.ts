// What a channel looks like through the console API: every column except the key, which is only
// ever returned by revealChannelKey (root).
import type { Channel } from "@/lib/db/generated/sqlite/client";
import { num } from "@/lib/db/num";
import { breakerTarget, breakerView } from "@/lib/channels/breaker";

export const CHANNEL_VIEW_SELECT = {
  id: true,
  type: true,
  name: true,
  status: true,
  openai_organization: true,
  test_model: true,
  weight: true,
  priority: true,
  created_time: true,
  test_time: true,
  response_time: true,
  base_url: true,
  other: true,
  balance: true,
  balance_updated_time: true,
  models: true,
  group: true,
  used_quota: true,
  model_mapping: true,
  status_code_mapping: true,
  output_limits: true,
  auto_ban: true,
  other_info: true,
  max_input_tokens: true,
  tag: true,
  address_by_root: true,
  multi_key_mode: true,
} as const;

export type ChannelViewRow = Pick<Channel, keyof typeof CHANNEL_VIEW_SELECT>;
export type ChannelView = ReturnType<typeof toChannelView>;

/**
 * `breaker`: the channel's circuit breaker as this process last heard it (open with when it
 * reopens, or half-open), null when closed. `keys`: a multi-key channel's enabled and total keys
 * (the list's "3/5 密钥"), null otherwise or when not counted.
 */
export function toChannelView(row: ChannelViewRow, keys: { enabled: number; total: number } | null = null) {
  return { ...row, key: "", used_quota: num(row.used_quota), keys, breaker: breakerView(breakerTarget(row.id)) };
}
