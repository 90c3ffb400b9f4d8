"use client";
// The "账户安全" part of the edit-user drawer: the account's bindings, each clearable
// (DELETE /api/user/{id}/bindings/{type}), and the resets for a user who lost their phone or
// authenticator: passkeys (admins, DELETE /api/user/{id}/reset_passkey) and two-factor (root only,
// DELETE /api/user/{id}/2fa). The drawer does not know whether the user has passkeys or 2FA, so both
// resets are always offered; the server answers clearly when there is nothing to reset. Binding
// itself stays with the user in personal settings.
import { Button, Group, Stack, Text, TextInput } from "@mantine/core";
import { useState } from "react";
import { type ConfirmOptions, confirmAction } from "@/components/data/confirm";
import { api } from "@/lib/client/api";
import { showSuccess } from "@/lib/client/notify";
import { isRoot } from "@/lib/auth/roles";
import { USER_FORM_MSG } from "@/lib/users/form";
import type { Actor } from "@/lib/users/manage-rules";
import type { UserView } from "@/lib/users/view";

/** The binding types of the admin call, with the user column each reads. */
export const USER_BINDINGS = [
  { type: "github", key: "github_id", name: "GitHub", label: "已绑定的 GitHub 账户" },
  { type: "wechat", key: "wechat_id", name: "微信", label: "已绑定的微信账户" },
  { type: "email", key: "email", name: "邮箱", label: "已绑定的邮箱账户" },
  { type: "telegram", key: "telegram_id", name: "Telegram", label: "已绑定的 Telegram 账户" },
  { type: "linuxdo", key: "linux_do_id", name: "LinuxDO", label: "已绑定的 LinuxDO 账户" },
  { type: "oidc", key: "oidc_id", name: "OIDC", label: "已绑定的 OIDC 账户" },
] as const satisfies readonly { type: string; key: keyof UserView; name: string; label: string }[];

export type UserBinding = (typeof USER_BINDINGS)[number];

export const USER_SECURITY_MSG = {
  title: "账户安全",
  clear: "清除",
  resetPasskey: "重置通行密钥",
  resetTwoFactor: "重置两步验证",
  clearTitle: (name: string) => `确定要清除该用户的${name}绑定吗？`,
  clearBody: "清除后该用户不能再用此账户登录，需要时可在个人设置中重新绑定",
  clearEmailBody: "清除后该用户需要在个人设置中重新绑定邮箱",
  passkeyTitle: "确定要重置该用户的通行密钥吗？",
  passkeyBody: "将删除该用户的全部通行密钥，需由用户重新添加。若通行密钥是其唯一的登录方式，请先为其设置密码",
  twoFactorTitle: "确定要重置该用户的两步验证吗？",
  twoFactorBody: "将强制停用该用户的两步验证，并让其所有登录会话失效；用户可在个人设置中重新启用",
} as const;

type Props = {
  user: UserView;
  viewer: Actor;
  /** A binding the server cleared: the drawer shows it unbound. */
  onCleared: (key: UserBinding["key"]) => void;
};

/** Asks, calls, reports the server's answer; `busy` names the call under way (its button spins). */
function useSecurityCall() {
  const [busy, setBusy] = useState<string | null>(null);
  const run = async (name: string, ask: ConfirmOptions, path: string, after?: () => void) => {
    if (!(await confirmAction(ask))) return;
    setBusy(name);
    const res = await api("DELETE", path).finally(() => setBusy(null));
    if (!res.success) return;
    showSuccess(res.message);
    after?.();
  };
  return { busy, run };
}

export function UserSecurity({ user, viewer, onCleared }: Props) {
  const { busy, run } = useSecurityCall();
  const clear = (b: UserBinding) =>
    run(
      b.type,
      {
        title: USER_SECURITY_MSG.clearTitle(b.name),
        message: b.type === "email" ? USER_SECURITY_MSG.clearEmailBody : USER_SECURITY_MSG.clearBody,
        confirmLabel: USER_SECURITY_MSG.clear,
        danger: true,
      },
      `/api/user/${user.id}/bindings/${b.type}`,
      () => onCleared(b.key),
    );

  return (
    <Stack gap="sm">
      <Text size="xs" c="dimmed">
        {USER_FORM_MSG.bindingsReadOnly}
      </Text>
      {USER_BINDINGS.map((b) => {
        const value = String(user[b.key] ?? "");
        return (
          <Group key={b.type} gap="xs" align="flex-end" wrap="nowrap">
            <TextInput label={b.label} value={value} placeholder="未绑定" variant="filled" readOnly flex={1} miw={0} />
            {value && (
              <Button
                variant="light"
                color="red"
                aria-label={`${USER_SECURITY_MSG.clear}${b.name}绑定`}
                loading={busy === b.type}
                onClick={() => clear(b)}
              >
                {USER_SECURITY_MSG.clear}
              </Button>
            )}
          </Group>
        );
      })}
      <Group gap="xs">
        <Button
          variant="light"
          color="orange"
          loading={busy === "passkey"}
          onClick={() =>
            run(
              "passkey",
              {
                title: USER_SECURITY_MSG.passkeyTitle,
                message: USER_SECURITY_MSG.passkeyBody,
                confirmLabel: "重置",
                danger: true,
              },
              `/api/user/${user.id}/reset_passkey`,
            )
          }
        >
          {USER_SECURITY_MSG.resetPasskey}
        </Button>
        {isRoot(viewer) && (
          <Button
            variant="light"
            color="red"
            loading={busy === "2fa"}
            onClick={() =>
              run(
                "2fa",
                {
                  title: USER_SECURITY_MSG.twoFactorTitle,
                  message: USER_SECURITY_MSG.twoFactorBody,
                  confirmLabel: "重置",
                  danger: true,
                },
                `/api/user/${user.id}/2fa`,
              )
            }
          >
            {USER_SECURITY_MSG.resetTwoFactor}
          </Button>
        )}
      </Group>
    </Stack>
  );
}
