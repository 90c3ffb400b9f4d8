import type { User } from "@/lib/db/generated/sqlite/client";
import { num } from "@/lib/db/num";

/** Columns a user row may ever expose; secrets (password, access token hash) are never selected. */
export const USER_PUBLIC_SELECT = {
  id: true,
  username: true,
  display_name: true,
  email: true,
  github_id: true,
  wechat_id: true,
  telegram_id: true,
  linux_do_id: true,
  oidc_id: true,
  group: true,
  quota: true,
  used_quota: true,
  request_count: true,
  aff_code: true,
  aff_count: true,
  aff_quota: true,
  aff_history_quota: true,
  inviter_id: true,
  role: true,
  status: true,
  created_time: true,
  deleted_at: true,
} as const;

export type UserPublicRow = Pick<User, keyof typeof USER_PUBLIC_SELECT>;

export type UserView = ReturnType<typeof toUserView>;

export function toUserView(u: UserPublicRow) {
  return {
    id: u.id,
    username: u.username,
    display_name: u.display_name,
    email: u.email,
    github_id: u.github_id,
    wechat_id: u.wechat_id,
    telegram_id: u.telegram_id,
    linux_do_id: u.linux_do_id,
    oidc_id: u.oidc_id,
    group: u.group,
    quota: num(u.quota),
    used_quota: num(u.used_quota),
    request_count: u.request_count,
    aff_code: u.aff_code ?? "",
    aff_count: u.aff_count,
    aff_quota: num(u.aff_quota),
    aff_history_quota: num(u.aff_history_quota),
    inviter_id: u.inviter_id,
    role: u.role,
    status: u.status,
    created_time: u.created_time,
    DeletedAt: u.deleted_at ? u.deleted_at.toISOString() : null,
  };
}
