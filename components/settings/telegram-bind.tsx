"use client";
// Binding Telegram from personal settings: the same widget as the login page, sending the browser
// to /oauth/telegram/bind, which binds the account and comes back here (a fresh page: `onBound`
// has nothing left to do).
import { TelegramWidget } from "@/components/auth/telegram-widget";
import type { SiteStatus } from "@/lib/ui/site-status";

/** Where the widget sends the browser to bind (app/oauth/telegram/bind/page.tsx). */
export const TELEGRAM_BIND_PAGE = "/oauth/telegram/bind";

export function TelegramBindButton({ status }: { status: SiteStatus; onBound: () => void }) {
  return (
    <TelegramWidget
      botName={status.telegram_bot_name ?? ""}
      scriptUrl={status.telegram_widget_url}
      authUrl={TELEGRAM_BIND_PAGE}
      size="medium"
    />
  );
}
