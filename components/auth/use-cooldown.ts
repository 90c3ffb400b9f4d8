"use client";
// A countdown for resend buttons (spec §4: 30 s between verification e-mails).
import { useCallback, useEffect, useState } from "react";

export function useCooldown(seconds: number): [number, () => void] {
  const [left, setLeft] = useState(0);
  useEffect(() => {
    if (left <= 0) return;
    const timer = window.setTimeout(() => setLeft((n) => n - 1), 1000);
    return () => window.clearTimeout(timer);
  }, [left]);
  const start = useCallback(() => setLeft(seconds), [seconds]);
  return [left, start];
}
