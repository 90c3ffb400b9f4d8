"use client";
// Whether the side menu is open on wide screens: open, unless the server's DefaultCollapseSidebar
// is on (spec §2), in which case it starts collapsed and the user can still expand it.
import { useCallback, useEffect, useRef, useState } from "react";
import { useSiteStatus } from "@/lib/client/hooks";

export function useSidebarState(): [boolean, () => void] {
  const status = useSiteStatus();
  const [opened, setOpened] = useState(true);
  const decided = useRef(false);

  useEffect(() => {
    if (decided.current || !status) return;
    decided.current = true;
    if (status.default_collapse_sidebar) setOpened(false);
  }, [status]);

  const toggle = useCallback(() => {
    decided.current = true;
    setOpened((o) => !o);
  }, []);
  return [opened, toggle];
}
