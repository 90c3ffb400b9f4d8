"use client";
// 配置登录注册: each switch saves at once. Turning password login off asks first (spec §5 Options);
// a switch whose settings are missing (an OAuth client, the Turnstile keys, SMTP) is refused by the
// server with the message of lib/options/registry.ts and stays off. The third-party logins are
// shown disabled until their flows exist (lib/options/unavailable.ts).
import { SimpleGrid, Switch } from "@mantine/core";
import { useState } from "react";
import { confirmAction } from "@/components/data/confirm";
import { SettingCard } from "@/components/settings/setting-card";
import type { SavedOptions } from "@/components/settings/system/option-form";
import { saveOption } from "@/lib/client/options";
import { NOT_YET_OPEN, UNAVAILABLE_LOGINS } from "@/lib/options/unavailable";

export const LOGIN_TOGGLES = [
  { key: "PasswordLoginEnabled", label: "允许通过密码进行登录" },
  { key: "PasswordRegisterEnabled", label: "允许通过密码进行注册" },
  { key: "EmailVerificationEnabled", label: "通过密码注册时需要进行邮箱验证" },
  { key: "RegisterEnabled", label: "允许新用户注册（此项为否时，新用户将无法以任何方式进行注册）" },
  { key: "GitHubOAuthEnabled", label: "允许通过 GitHub 账户登录 & 注册" },
  { key: "LinuxDOOAuthEnabled", label: "允许通过 LinuxDO 账户登录 & 注册" },
  { key: "WeChatAuthEnabled", label: "允许通过微信登录 & 注册" },
  { key: "TelegramOAuthEnabled", label: "允许通过 Telegram 进行登录" },
  { key: "TurnstileCheckEnabled", label: "启用 Turnstile 用户校验" },
] as const;

export const PASSWORD_LOGIN_OFF = {
  title: "确认取消密码登录",
  message: "您确定要取消密码登录功能吗？这可能会影响用户的登录方式。",
} as const;

type Props = { saved: SavedOptions; reload: () => Promise<SavedOptions | null> };

export function LoginToggles({ saved, reload }: Props) {
  const [pending, setPending] = useState<string | null>(null);

  const toggle = async (key: string, on: boolean) => {
    if (key === "PasswordLoginEnabled" && !on && !(await confirmAction({ ...PASSWORD_LOGIN_OFF, danger: true }))) return;
    setPending(key);
    await saveOption(key, String(on));
    await reload();
    setPending(null);
  };

  return (
    <SettingCard title="配置登录注册" description="开关立即生效。第三方登录尚未开放。">
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="sm" verticalSpacing="sm">
        {LOGIN_TOGGLES.map(({ key, label }) => {
          // A login whose flow is not built stays off, whatever is stored (/api/status says off too).
          const unavailable = UNAVAILABLE_LOGINS.has(key);
          return (
            <Switch
              key={key}
              label={label}
              description={unavailable ? NOT_YET_OPEN : undefined}
              checked={!unavailable && saved.values[key] === "true"}
              disabled={unavailable || pending !== null}
              onChange={(e) => void toggle(key, e.currentTarget.checked)}
            />
          );
        })}
      </SimpleGrid>
    </SettingCard>
  );
}
