"use client";
// The login page's Telegram widget: after the user confirms in Telegram, the browser comes to
// /oauth/telegram with the signed fields, which signs in the account they were bound to.
import { TelegramWidget } from "@/components/auth/telegram-widget";
import type { SiteStatus } from "@/lib/ui/site-status";

/** Where the widget sends the browser to sign in (app/oauth/telegram/page.tsx). */
export const TELEGRAM_LOGIN_PAGE = "/oauth/telegram";

export function TelegramLoginButton({ status }: { status: SiteStatus }) {
  return <TelegramWidget botName={status.telegram_bot_name ?? ""} scriptUrl={status.telegram_widget_url} authUrl={TELEGRAM_LOGIN_PAGE} />;
}
