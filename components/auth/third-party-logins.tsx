"use client";
// Buttons for the third-party logins the server enables (GitHub, LinuxDO, WeChat, Telegram).
// GitHub and LinuxDO open their authorize page in a new window, as the original does; the WeChat
// and Telegram flows arrive with their own issue.
import { Button, Divider, Group } from "@mantine/core";
import { api } from "@/lib/client/api";
import { TelegramLoginButton } from "@/components/auth/telegram-login";
import { WeChatLoginButton } from "@/components/auth/wechat-login";
import { readAff } from "@/lib/client/storage";
import type { SiteStatus } from "@/lib/ui/site-status";

async function openAuthorize(url: (state: string) => string) {
  const res = await api<string>("GET", `/api/oauth/state?aff=${encodeURIComponent(readAff())}`, undefined, { redirectOn401: false });
  if (res.success) window.open(url(res.data));
}

export function hasThirdPartyLogin(status: SiteStatus | null): boolean {
  return !!(status?.github_oauth || status?.linuxdo_oauth || status?.wechat_login || status?.telegram_oauth);
}

export function ThirdPartyLogins({ status }: { status: SiteStatus | null }) {
  if (!status || !hasThirdPartyLogin(status)) return null;
  return (
    <>
      <Divider my="md" label="第三方登录" labelPosition="center" />
      <Group justify="center" gap="sm">
        {status.github_oauth && (
          <Button
            variant="default"
            onClick={() =>
              openAuthorize(
                (state) =>
                  `https://github.com/login/oauth/authorize?client_id=${encodeURIComponent(status.github_client_id ?? "")}&state=${encodeURIComponent(state)}&scope=user:email`,
              )
            }
          >
            GitHub
          </Button>
        )}
        {status.linuxdo_oauth && (
          <Button
            variant="default"
            onClick={() =>
              openAuthorize(
                (state) =>
                  `https://connect.linux.do/oauth2/authorize?response_type=code&client_id=${encodeURIComponent(status.linuxdo_client_id ?? "")}&state=${encodeURIComponent(state)}`,
              )
            }
          >
            LinuxDO
          </Button>
        )}
        {status.wechat_login && <WeChatLoginButton status={status} />}
        {status.telegram_oauth && <TelegramLoginButton status={status} />}
      </Group>
    </>
  );
}
