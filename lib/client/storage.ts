// Local-storage keys of spec §3, written the way the original console writes them, plus a tiny
// change feed so React re-renders when this tab (or another tab) changes them. Browser-only.
import type { StoredUser } from "@/lib/client/types";
import type { SiteStatus } from "@/lib/ui/site-status";
import { DEFAULT_PAGE_SIZE } from "@/lib/db/paging";
import { ID_SORT_COOKIE, PAGE_SIZE_COOKIE, PAGE_SIZES } from "@/lib/ui/list-params";
import { SIGNED_IN_COOKIE } from "@/lib/auth/route-access";

export const STORAGE_KEYS = {
  user: "user",
  status: "status",
  chats: "chats",
  chatLink: "chat_link",
  chatLink2: "chat_link2",
  pageSize: "page-size",
  idSort: "id-sort",
  defaultCollapseSidebar: "default_collapse_sidebar",
  enableDataExport: "enable_data_export",
  enableDrawing: "enable_drawing",
  enableTask: "enable_task",
  mjNotifyEnabled: "mj_notify_enabled",
  footerHtml: "footer_html",
  /** The notice each viewer (user id, or "guest") last saw. */
  noticeSeen: "notice_seen",
  aff: "aff",
} as const;

const listeners = new Set<() => void>();

function storage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.localStorage;
  } catch {
    return null; // storage disabled by the browser
  }
}

function notify() {
  for (const listener of listeners) listener();
}

/** Subscribe to changes of any key written here or in another tab. */
export function subscribeStorage(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = () => listener();
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", onStorage);
  };
}

export function readRaw(key: string): string | null {
  return storage()?.getItem(key) ?? null;
}

function write(key: string, value: string | null) {
  const s = storage();
  if (!s) return;
  if (value === null) s.removeItem(key);
  else s.setItem(key, value);
}

function parseJson<T>(raw: string | null): T | null {
  if (!raw) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
}

// ---- user -------------------------------------------------------------------------------------

export function readUser(): StoredUser | null {
  const user = parseJson<StoredUser>(readRaw(STORAGE_KEYS.user));
  return user && typeof user.id === "number" ? user : null;
}

export function writeUser(user: StoredUser) {
  write(STORAGE_KEYS.user, JSON.stringify(user));
  markSignedIn(true);
  notify();
}

export function clearUser() {
  write(STORAGE_KEYS.user, null);
  markSignedIn(false);
  notify();
}

/**
 * The stored user's shadow for the server (lib/auth/route-access.ts SIGNED_IN_COOKIE): a page
 * request without a standing session then goes to the expired notice instead of the plain login.
 */
function markSignedIn(on: boolean) {
  if (typeof document === "undefined") return;
  // biome-ignore lint/suspicious/noDocumentCookie: a marker, not a credential; the Cookie Store API is not in every browser
  document.cookie = `${SIGNED_IN_COOKIE}=${on ? "1" : ""}; path=/; max-age=${on ? 31536000 : 0}; samesite=lax`;
}

// ---- status -----------------------------------------------------------------------------------

/** Stores the status object and the individual keys derived from it (spec §3). */
export function writeStatus(status: SiteStatus) {
  write(STORAGE_KEYS.status, JSON.stringify(status));
  const chats = typeof status.chats === "string" ? status.chats : JSON.stringify(status.chats ?? []);
  write(STORAGE_KEYS.chats, chats);
  write(STORAGE_KEYS.chatLink, status.chat_link ? status.chat_link : null);
  write(STORAGE_KEYS.chatLink2, status.chat_link2 ? status.chat_link2 : null);
  write(STORAGE_KEYS.defaultCollapseSidebar, String(!!status.default_collapse_sidebar));
  write(STORAGE_KEYS.enableDataExport, String(!!status.enable_data_export));
  write(STORAGE_KEYS.enableDrawing, String(!!status.enable_drawing));
  write(STORAGE_KEYS.enableTask, String(!!status.enable_task));
  write(STORAGE_KEYS.mjNotifyEnabled, String(!!status.mj_notify_enabled));
  write(STORAGE_KEYS.footerHtml, status.footer_html ? status.footer_html : null);
  notify();
}

export function readFooterHtml(): string {
  return readRaw(STORAGE_KEYS.footerHtml) ?? "";
}

// ---- notice -----------------------------------------------------------------------------------

function readNoticeSeen(): Record<string, string> {
  const seen = parseJson<unknown>(readRaw(STORAGE_KEYS.noticeSeen));
  return seen && typeof seen === "object" && !Array.isArray(seen) ? (seen as Record<string, string>) : {};
}

/** Whether `viewer` has already been shown this notice text. */
export function noticeSeen(viewer: string, notice: string): boolean {
  return readNoticeSeen()[viewer] === notice;
}

export function markNoticeSeen(viewer: string, notice: string) {
  write(STORAGE_KEYS.noticeSeen, JSON.stringify({ ...readNoticeSeen(), [viewer]: notice }));
}

// ---- list preferences (page-size, id-sort) ----------------------------------------------------

export function readPageSize(fallback = DEFAULT_PAGE_SIZE): number {
  const n = Number(readRaw(STORAGE_KEYS.pageSize));
  return (PAGE_SIZES as readonly number[]).includes(n) ? n : fallback;
}

/** Local storage (spec §3) and a cookie, so the server render of the next list uses it too. */
export function writePageSize(size: number) {
  write(STORAGE_KEYS.pageSize, String(size));
  if (typeof document !== "undefined") {
    // biome-ignore lint/suspicious/noDocumentCookie: a plain preference cookie; the Cookie Store API is not in every browser
    document.cookie = `${PAGE_SIZE_COOKIE}=${size}; path=/; max-age=31536000; samesite=lax`;
  }
  notify();
}

export function readIdSort(): boolean {
  return readRaw(STORAGE_KEYS.idSort) === "true";
}

/** Local storage (spec §3) and a cookie, so the server render of the channel list sorts the same way. */
export function writeIdSort(on: boolean) {
  write(STORAGE_KEYS.idSort, String(on));
  if (typeof document !== "undefined") {
    // biome-ignore lint/suspicious/noDocumentCookie: a plain preference cookie, like page-size
    document.cookie = `${ID_SORT_COOKIE}=${on}; path=/; max-age=31536000; samesite=lax`;
  }
}

// ---- invite code ------------------------------------------------------------------------------

export function readAff(): string {
  return readRaw(STORAGE_KEYS.aff) ?? "";
}

export function writeAff(code: string) {
  if (code) write(STORAGE_KEYS.aff, code);
}
