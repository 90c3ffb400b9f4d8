// Paging of console lists (spec §7 Paging, §9): `p` from 0 in the URL, the page size from the URL
// or else the `page-size` cookie the browser writes beside local storage, so the server render of a
// list already uses the size the user picked last.
import { DEFAULT_PAGE_SIZE, lastPage } from "@/lib/db/paging";

export const PAGE_SIZES = [10, 20, 50, 100] as const;
export const PAGE_SIZE_COOKIE = "page-size";
/** The channel list's ID-sort toggle, mirrored from local storage for the server render. */
export const ID_SORT_COOKIE = "id-sort";

export type SearchParams = Record<string, string | string[] | undefined>;

/** One value of a page's searchParams, trimmed (spec §5: search inputs are trimmed). */
export function param(params: SearchParams, key: string): string {
  const value = params[key];
  return (Array.isArray(value) ? (value[0] ?? "") : (value ?? "")).trim();
}

export function pageSizeOf(raw: string | undefined | null): number {
  const n = Number(raw);
  return (PAGE_SIZES as readonly number[]).includes(n) ? n : DEFAULT_PAGE_SIZE;
}

/**
 * The page and page size a list page renders; a page past any possible row is clamped. `prefix`
 * names the keys of a list that shares its page's URL with other query values (the wallet's
 * orders read `orders_p` and `orders_size`; see useListUrl).
 */
export function listParams(params: SearchParams, cookieSize: string | undefined, prefix = ""): { p: number; page_size: number } {
  const page_size = pageSizeOf(param(params, `${prefix}size`) || cookieSize);
  const p = Math.min(Math.max(0, Math.floor(Number(param(params, `${prefix}p`))) || 0), lastPage(page_size));
  return { p, page_size };
}
