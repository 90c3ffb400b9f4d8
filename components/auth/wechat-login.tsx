"use client";
// The WeChat login button (QR code and code entry). Placeholder until the WeChat flow lands: it
// says the login is not open, as before.
import { Button } from "@mantine/core";
import { showInfo } from "@/lib/client/notify";
import type { SiteStatus } from "@/lib/ui/site-status";

export function WeChatLoginButton(_props: { status: SiteStatus }) {
  return (
    <Button variant="default" color="green" onClick={() => showInfo("该登录方式暂未开放，请使用其他方式登录")}>
      微信
    </Button>
  );
}
