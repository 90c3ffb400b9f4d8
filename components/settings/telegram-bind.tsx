"use client";
// Binding Telegram from personal settings. Placeholder until the Telegram flow lands.
import type { SiteStatus } from "@/lib/ui/site-status";

export function TelegramBindButton(_props: { status: SiteStatus; onBound: () => void }) {
  return null;
}
