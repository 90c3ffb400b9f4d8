"use client";
// The Telegram Login Widget: Telegram's script (TELEGRAM_WIDGET_URL, published in /api/status) draws
// its button here for the bot named by TelegramBotName. Once the user confirms in Telegram, the
// widget sends the browser to `authUrl` with the account's signed fields (its data-auth-url mode).
// Not its data-onauth mode: the widget evaluates that attribute as code, which the console's
// Content-Security-Policy forbids (no 'unsafe-eval'). The script is added by hand, beside the
// button's place, because the widget puts its frame next to the script element that loaded it.
import { Box, Text } from "@mantine/core";
import { useEffect, useRef, useState } from "react";

/** Telegram's own script, when the status carries none. */
const TELEGRAM_WIDGET_URL = "https://telegram.org/js/telegram-widget.js?22";

export type TelegramWidgetProps = {
  botName: string;
  scriptUrl?: string;
  /** Our page the widget sends the browser to, with the fields in the query. */
  authUrl: string;
  size?: "small" | "medium" | "large";
};

export function TelegramWidget({ botName, scriptUrl, authUrl, size = "large" }: TelegramWidgetProps) {
  const slot = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    const el = slot.current;
    if (!el || !botName) return;
    setFailed(false);
    const script = document.createElement("script");
    script.async = true;
    script.src = scriptUrl || TELEGRAM_WIDGET_URL;
    script.dataset.telegramLogin = botName;
    script.dataset.size = size;
    script.dataset.requestAccess = "write";
    script.dataset.authUrl = authUrl;
    script.onerror = () => setFailed(true);
    el.appendChild(script);
    return () => el.replaceChildren();
  }, [botName, scriptUrl, authUrl, size]);

  return (
    <Box data-testid="telegram-widget">
      <div ref={slot} style={{ display: "flex", alignItems: "center" }} />
      {failed && (
        <Text size="xs" c="dimmed">
          无法加载 Telegram 登录组件，请检查网络后刷新页面
        </Text>
      )}
    </Box>
  );
}
