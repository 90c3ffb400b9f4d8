"use client";
// The Telegram login widget. Placeholder until the Telegram flow lands: it says the login is not
// open, as before.
import { Button } from "@mantine/core";
import { showInfo } from "@/lib/client/notify";
import type { SiteStatus } from "@/lib/ui/site-status";

export function TelegramLoginButton(_props: { status: SiteStatus }) {
  return (
    <Button variant="default" onClick={() => showInfo("该登录方式暂未开放，请使用其他方式登录")}>
      Telegram
    </Button>
  );
}
