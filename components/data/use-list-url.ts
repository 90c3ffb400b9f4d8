"use client";
// Lists keep their state (page, page size, filters) in the URL, so a view can be shared and the
// server component renders it. Changing any of it is a navigation inside a transition.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useTransition } from "react";

export type ListUrl = {
  /** Set (or, with "" / null, remove) query values; any change but `p` goes back to page 0. */
  update: (values: Record<string, string | number | null | undefined>) => void;
  /** Re-render the server component with fresh data (after a change). */
  refresh: () => void;
  pending: boolean;
};

/**
 * `prefix` is put before every key this list writes (and before the `p` it resets), for a list
 * that is not alone on its page: the wallet's orders page as `orders_p` beside the return
 * banner's `out_trade_no` and `trade_no`.
 */
export function useListUrl(prefix = ""): ListUrl {
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const [pending, startTransition] = useTransition();

  const update = useCallback(
    (values: Record<string, string | number | null | undefined>) => {
      const next = new URLSearchParams(search.toString());
      for (const [key, value] of Object.entries(values)) {
        const text = value === null || value === undefined ? "" : String(value).trim();
        if (text === "") next.delete(prefix + key);
        else next.set(prefix + key, text);
      }
      if (!("p" in values)) next.delete(`${prefix}p`);
      const query = next.toString();
      startTransition(() => router.push(query ? `${pathname}?${query}` : pathname, { scroll: false }));
    },
    [router, pathname, search, prefix],
  );

  const refresh = useCallback(() => startTransition(() => router.refresh()), [router]);

  return { update, refresh, pending };
}
