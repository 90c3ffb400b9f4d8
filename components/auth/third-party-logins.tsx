"use client";
// Buttons for the third-party logins the server enables (GitHub, LinuxDO, OIDC, WeChat, Telegram).
// GitHub, LinuxDO and OIDC open the provider in a new window through the server's authorize step
// (lib/client/oauth.ts); when that window has signed in, this one follows it to /token.
import { Button, Divider, Group } from "@mantine/core";
import { useRouter } from "next/navigation";
import { useCallback } from "react";
import { TelegramLoginButton } from "@/components/auth/telegram-login";
import { WeChatLoginButton } from "@/components/auth/wechat-login";
import { type OAuthEvent, openAuthorize, useOAuthEvents } from "@/lib/client/oauth";
import type { SiteStatus } from "@/lib/ui/site-status";

export function hasThirdPartyLogin(status: SiteStatus | null): boolean {
  return !!(status?.github_oauth || status?.linuxdo_oauth || status?.oidc_enabled || status?.wechat_login || status?.telegram_oauth);
}

export function ThirdPartyLogins({ status }: { status: SiteStatus | null }) {
  const router = useRouter();
  const follow = useCallback(
    (event: OAuthEvent) => {
      if (event.kind === "signed_in") router.push("/token");
    },
    [router],
  );
  useOAuthEvents(follow);
  if (!status || !hasThirdPartyLogin(status)) return null;
  return (
    <>
      <Divider my="md" label="第三方登录" labelPosition="center" />
      <Group justify="center" gap="sm">
        {status.github_oauth && (
          <Button variant="default" onClick={() => openAuthorize("github")}>
            GitHub
          </Button>
        )}
        {status.linuxdo_oauth && (
          <Button variant="default" onClick={() => openAuthorize("linuxdo")}>
            LinuxDO
          </Button>
        )}
        {status.oidc_enabled && (
          <Button variant="default" onClick={() => openAuthorize("oidc")}>
            {status.oidc_display_name || "OIDC"}
          </Button>
        )}
        {status.wechat_login && <WeChatLoginButton status={status} />}
        {status.telegram_oauth && <TelegramLoginButton status={status} />}
      </Group>
    </>
  );
}
