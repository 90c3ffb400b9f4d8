// What a redemption code looks like through the console API. Lists show a masked code; reading
// one code (and creating codes) gives the whole code, to admins only.
import type { Redemption } from "@/lib/db/generated/sqlite/client";
import { num } from "@/lib/db/num";
import { maskRedemptionKey } from "@/lib/redemptions/keys";

export const REDEMPTION_VIEW_SELECT = {
  id: true,
  user_id: true,
  name: true,
  key_hint: true,
  status: true,
  quota: true,
  created_time: true,
  redeemed_time: true,
  used_user_id: true,
} as const;

export type RedemptionViewRow = Pick<Redemption, keyof typeof REDEMPTION_VIEW_SELECT>;

export type RedemptionView = {
  id: number;
  /** The admin who created the code. */
  user_id: number;
  name: string;
  /** Masked (abcd****…wxyz) in lists; the whole code from getRedemption. */
  key: string;
  /** 1 unused, 2 disabled, 3 used. */
  status: number;
  quota: number;
  created_time: number;
  /** Unix seconds; 0 until redeemed. */
  redeemed_time: number;
  /** Who redeemed it; 0 means nobody. */
  used_user_id: number;
};

export function toRedemptionView(row: RedemptionViewRow, fullKey?: string): RedemptionView {
  const { key_hint, ...rest } = row;
  return { ...rest, key: fullKey ?? maskRedemptionKey(key_hint), quota: num(row.quota) };
}
