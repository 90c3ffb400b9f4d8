"use client";
// Loads one public option text (/api/home_page_content, /api/about, /api/notice).
import { useEffect, useState } from "react";
import { api } from "@/lib/client/api";

export type OptionText = { state: "loading" } | { state: "error"; message: string } | { state: "ready"; text: string };

export function useOptionText(path: string, options: { quiet?: boolean } = {}): OptionText {
  const [result, setResult] = useState<OptionText>({ state: "loading" });
  const quiet = !!options.quiet;
  useEffect(() => {
    const abort = new AbortController();
    void api<string>("GET", path, undefined, { redirectOn401: false, signal: abort.signal, quiet }).then((res) => {
      if (abort.signal.aborted) return;
      setResult(
        res.success ? { state: "ready", text: typeof res.data === "string" ? res.data : "" } : { state: "error", message: res.message },
      );
    });
    return () => abort.abort();
  }, [path, quiet]);
  return result;
}
