// Status and user refreshes done at app start, login and logout. Browser-only.
import { api } from "@/lib/client/api";
import { showError, showSuccess } from "@/lib/client/notify";
import { clearUser, readRaw, STORAGE_KEYS, writeStatus, writeUser } from "@/lib/client/storage";
import type { StoredUser } from "@/lib/client/types";
import type { SiteStatus } from "@/lib/ui/site-status";
import { TEXT } from "@/lib/ui/api-errors";

/** Fetches /api/status and stores it with its derived keys; '无法正常连接至服务器！' on failure. */
export async function refreshStatus(): Promise<SiteStatus | null> {
  const res = await api<SiteStatus>("GET", "/api/status", undefined, { quiet: true, redirectOn401: false });
  if (!res.success || !res.data) {
    showError(TEXT.unreachable);
    return null;
  }
  writeStatus(res.data);
  return res.data;
}

/**
 * Re-reads the logged-in user from the server. On a console page an expired session sends the
 * visitor to the login page (spec §4); on a public page it only forgets the stored user.
 */
export async function refreshSelf(options: { asUser?: number; redirect: boolean }): Promise<StoredUser | null> {
  const before = readRaw(STORAGE_KEYS.user);
  const res = await api<StoredUser>("GET", "/api/user/self", undefined, {
    quiet: true,
    redirectOn401: options.redirect,
    asUser: options.asUser,
  });
  // A login or logout finished meanwhile: its answer is newer than ours.
  if (readRaw(STORAGE_KEYS.user) !== before) return null;
  if (res.success && res.data) {
    writeUser(res.data);
    return res.data;
  }
  if (res.httpStatus === 401 || res.httpStatus === 403) clearUser();
  return null;
}

export async function logout(): Promise<void> {
  await api("POST", "/api/user/logout", undefined, { quiet: true, redirectOn401: false });
  clearUser();
  showSuccess("注销成功!");
}
