"use client";
// Change password (spec §5 Users): the current password, a new one of 8–20 characters typed
// twice. PUT /api/user/self ends every other session and renews this one; the status is read
// again so root's default-password banner goes away at once. An account without a password (signed
// up through GitHub, LinuxDO, OIDC…) sets its first one here, without a current one.
import { Button, Group, PasswordInput } from "@mantine/core";
import { schemaResolver, useForm } from "@mantine/form";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { SettingCard } from "@/components/settings/setting-card";
import { api } from "@/lib/client/api";
import { showSuccess } from "@/lib/client/notify";
import { refreshStatus } from "@/lib/client/session";
import {
  type ChangePasswordValues,
  changePasswordBody,
  changePasswordSchema,
  SETTINGS_MSG,
  setPasswordSchema,
} from "@/lib/users/self-form";

export function PasswordCard({ hasPassword }: { hasPassword: boolean }) {
  const router = useRouter();
  const [submitting, setSubmitting] = useState(false);
  const form = useForm<ChangePasswordValues>({
    mode: "controlled",
    initialValues: { original_password: "", password: "", password2: "" },
    validate: schemaResolver(hasPassword ? changePasswordSchema : setPasswordSchema, { sync: true }),
  });

  const submit = async (values: ChangePasswordValues) => {
    setSubmitting(true);
    const res = await api("PUT", "/api/user/self", changePasswordBody(values));
    setSubmitting(false);
    if (!res.success) return;
    form.reset();
    showSuccess(hasPassword ? SETTINGS_MSG.passwordChanged : SETTINGS_MSG.passwordSet);
    await refreshStatus();
    if (!hasPassword) router.refresh();
  };

  const action = hasPassword ? "修改密码" : "设置密码";
  return (
    <SettingCard
      title={action}
      description={
        hasPassword
          ? "修改后，其他设备上的登录会失效，当前页面保持登录。"
          : "该账户还没有密码（通过第三方账户注册）。设置后也可以用用户名和密码登录。"
      }
    >
      <form noValidate onSubmit={form.onSubmit(submit)}>
        <input type="text" name="username" autoComplete="username" hidden readOnly />
        {hasPassword && (
          <PasswordInput
            label="当前密码"
            autoComplete="current-password"
            mb="sm"
            key={form.key("original_password")}
            {...form.getInputProps("original_password")}
          />
        )}
        <PasswordInput
          label="新密码"
          placeholder="最短 8 位，最长 20 位"
          autoComplete="new-password"
          mb="sm"
          key={form.key("password")}
          {...form.getInputProps("password")}
        />
        <PasswordInput
          label="确认新密码"
          autoComplete="new-password"
          mb="sm"
          key={form.key("password2")}
          {...form.getInputProps("password2")}
        />
        <Group>
          <Button type="submit" loading={submitting}>
            {action}
          </Button>
        </Group>
      </form>
    </SettingCard>
  );
}
