"use client";
// 配置登录注册: each switch saves at once. Turning password login off asks first (spec §5 Options);
// a switch whose settings are missing (an OAuth client, the Turnstile keys, SMTP) is refused by the
// server with the message of lib/options/registry.ts and stays off.
import { SimpleGrid, Switch } from "@mantine/core";
import { useState } from "react";
import { confirmAction } from "@/components/data/confirm";
import { SettingCard } from "@/components/settings/setting-card";
import type { SavedOptions } from "@/components/settings/system/option-form";
import { saveOption } from "@/lib/client/options";
import { sectionFields } from "@/lib/options/registry";

/** The switches, in the order shown: the registry's "login" section. */
export const LOGIN_TOGGLES = sectionFields("login");

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
    <SettingCard title="配置登录注册" description="开关立即生效。第三方登录需先在下方填好对应的配置。">
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="sm" verticalSpacing="sm">
        {LOGIN_TOGGLES.map(({ key, label }) => (
          <Switch
            key={key}
            label={label}
            checked={saved.values[key] === "true"}
            disabled={pending !== null}
            onChange={(e) => void toggle(key, e.currentTarget.checked)}
          />
        ))}
      </SimpleGrid>
    </SettingCard>
  );
}
