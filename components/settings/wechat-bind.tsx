"use client";
// Binding WeChat from personal settings. Placeholder until the WeChat flow lands.
import type { SiteStatus } from "@/lib/ui/site-status";

export function WeChatBindButton(_props: { status: SiteStatus; onBound: () => void }) {
  return null;
}
