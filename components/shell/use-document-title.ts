"use client";
// The browser tab shows the configured system name, as in the original console.
import { useEffect } from "react";
import { useSiteStatus } from "@/lib/client/hooks";

export function useDocumentTitle(pathname: string) {
  const name = useSiteStatus()?.system_name;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a navigation (pathname) resets the title, so it is set again
  useEffect(() => {
    if (name) document.title = name;
  }, [name, pathname]);
}
