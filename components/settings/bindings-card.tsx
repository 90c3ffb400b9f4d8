"use client";
// 账户绑定 on the personal tab (spec §2 Settings → personal): every way the account can be found
// by, with what is bound. E-mail is bound with a mailed code; GitHub, LinuxDO and OIDC through the
// provider in a new window (the callback binds to this session); WeChat and Telegram through their
// own buttons. Anything bound can be unbound after a confirmation, except the last way left to sign
// in (the server refuses it and says why).
import { Button, DataList, Group, Text } from "@mantine/core";
import { useRouter } from "next/navigation";
import { useCallback, useState } from "react";
import { EmailBindButton } from "@/components/auth/email-bind-button";
import { confirmAction } from "@/components/data/confirm";
import { SettingCard } from "@/components/settings/setting-card";
import { TelegramBindButton } from "@/components/settings/telegram-bind";
import { WeChatBindButton } from "@/components/settings/wechat-bind";
import { api } from "@/lib/client/api";
import { useSiteStatus } from "@/lib/client/hooks";
import { showSuccess } from "@/lib/client/notify";
import { type OAuthProviderName, openAuthorize, useOAuthEvents } from "@/lib/client/oauth";
import type { SiteStatus } from "@/lib/ui/site-status";
import type { UserView } from "@/lib/users/view";

type Row = {
  /** The path segment of DELETE /api/user/self/bindings/{binding}. */
  binding: "email" | "wechat" | "github" | "telegram" | "linuxdo" | "oidc";
  label: string;
  value: string;
  /** Whether the site offers it now (a bound one is listed whatever the switch says, so it can be unbound). */
  offered: boolean;
};

function rows(self: UserView, status: SiteStatus | null): Row[] {
  return [
    { binding: "email", label: "邮箱", value: self.email, offered: true },
    { binding: "wechat", label: "微信", value: self.wechat_id, offered: !!status?.wechat_login },
    { binding: "github", label: "GitHub", value: self.github_id, offered: !!status?.github_oauth },
    { binding: "telegram", label: "Telegram", value: self.telegram_id, offered: !!status?.telegram_oauth },
    { binding: "linuxdo", label: "LinuxDO", value: self.linux_do_id, offered: !!status?.linuxdo_oauth },
    { binding: "oidc", label: status?.oidc_display_name || "OIDC", value: self.oidc_id, offered: !!status?.oidc_enabled },
  ].filter((row) => row.binding !== "oidc" || row.offered || row.value) as Row[];
}

const OAUTH: ReadonlySet<string> = new Set<OAuthProviderName>(["github", "linuxdo", "oidc"]);

export function BindingsCard({ self }: { self: UserView }) {
  const router = useRouter();
  const status = useSiteStatus();
  const [pending, setPending] = useState<string | null>(null);
  const refresh = useCallback(() => router.refresh(), [router]);
  // A provider window that bound an account: show it here too.
  useOAuthEvents(refresh);

  const unbind = async ({ binding, label }: Row) => {
    const confirmed = await confirmAction({
      title: `解除${label}绑定`,
      message: `解除后将不能再通过该${label}账户登录本账户。确定要解除绑定吗？`,
      confirmLabel: "解除绑定",
      danger: true,
    });
    if (!confirmed) return;
    setPending(binding);
    const res = await api("DELETE", `/api/user/self/bindings/${binding}`);
    setPending(null);
    if (!res.success) return;
    showSuccess(res.message || "解绑成功");
    refresh();
  };

  const bindButton = (row: Row) => {
    if (row.binding === "email") return <EmailBindButton bound={!!row.value} />;
    if (row.value || !row.offered || !status) return null;
    if (row.binding === "wechat") return <WeChatBindButton status={status} onBound={refresh} />;
    if (row.binding === "telegram") return <TelegramBindButton status={status} onBound={refresh} />;
    if (!OAUTH.has(row.binding)) return null;
    return (
      <Button size="compact-sm" variant="light" onClick={() => openAuthorize(row.binding as OAuthProviderName)}>
        绑定
      </Button>
    );
  };

  return (
    <SettingCard title="账户绑定" description="绑定后可以用对应的账户登录。解绑前请确认还有其他登录方式。">
      <DataList size="sm" labelWidth="6em" withDivider aria-label="绑定情况">
        {rows(self, status).map((row) => (
          <DataList.Item key={row.binding}>
            <DataList.ItemLabel>{row.label}</DataList.ItemLabel>
            <DataList.ItemValue style={{ flex: 1, minWidth: 0, overflowWrap: "anywhere" }}>
              <Group gap="xs" justify="space-between" wrap="nowrap" mih={26} data-testid={`binding-${row.binding}`}>
                {row.value ? (
                  <span>{row.value}</span>
                ) : (
                  <Text span size="sm" c="dimmed">
                    未绑定
                  </Text>
                )}
                <Group gap={6} wrap="nowrap">
                  {bindButton(row)}
                  {row.value && (
                    <Button
                      size="compact-sm"
                      variant="subtle"
                      color="red"
                      loading={pending === row.binding}
                      onClick={() => void unbind(row)}
                      aria-label={`解绑${row.label}`}
                    >
                      解绑
                    </Button>
                  )}
                </Group>
              </Group>
            </DataList.ItemValue>
          </DataList.Item>
        ))}
      </DataList>
    </SettingCard>
  );
}
