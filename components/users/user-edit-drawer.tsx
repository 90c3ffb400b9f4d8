"use client";
// The edit-user drawer (spec §2 manage users, §5 Users): username, password (blank keeps it),
// display name, group, the balance with an add-quota amount that may be negative, and the account's
// security (bindings to clear, passkey and two-factor resets; user-security.tsx). The balance it
// loaded goes along, so the server applies only the difference.
import { Divider, NumberInput, PasswordInput, Select, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useEffect, useState } from "react";
import { useQuotaDisplay } from "@/components/data/display";
import { DrawerForm } from "@/components/data/drawer-form";
import { USER_SECURITY_MSG, UserSecurity } from "@/components/users/user-security";
import { api } from "@/lib/client/api";
import { showSuccess } from "@/lib/client/notify";
import { formatQuota } from "@/lib/ui/format";
import { type EditUserValues, editUserBody, editUserErrors, quotaAfterAdd, USER_FORM_MSG, wholeNumber } from "@/lib/users/form";
import type { Actor } from "@/lib/users/manage-rules";
import type { UserView } from "@/lib/users/view";

type Props = {
  /** null: closed; otherwise the user being edited. */
  id: number | null;
  groups: string[];
  /** Who is editing: only root is offered the two-factor reset. */
  viewer: Actor;
  onClose: () => void;
  onSaved: () => void;
};

const EMPTY: EditUserValues = { username: "", display_name: "", password: "", group: "", quota: 0, add_quota: "" };

export function UserEditDrawer({ id, groups, viewer, onClose, onSaved }: Props) {
  const display = useQuotaDisplay();
  const [user, setUser] = useState<UserView | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const form = useForm<EditUserValues>({ initialValues: EMPTY, validate: editUserErrors });

  // biome-ignore lint/correctness/useExhaustiveDependencies: load once per opening
  useEffect(() => {
    setUser(null);
    if (id === null) return;
    const controller = new AbortController();
    void api<UserView>("GET", `/api/user/${id}`, undefined, { signal: controller.signal }).then((res) => {
      if (controller.signal.aborted) return;
      if (!res.success) {
        onClose();
        return;
      }
      const u = res.data;
      const values: EditUserValues = {
        username: u.username,
        display_name: u.display_name,
        password: "",
        group: u.group,
        quota: u.quota,
        add_quota: "",
      };
      form.setValues(values);
      form.resetDirty(values);
      setUser(u);
    });
    return () => controller.abort();
  }, [id]);

  const submit = async () => {
    if (!user) return;
    setSubmitting(true);
    const res = await api("PUT", "/api/user/", editUserBody(user.id, form.getValues(), user.quota));
    setSubmitting(false);
    if (!res.success) return;
    showSuccess(USER_FORM_MSG.updated);
    onSaved();
  };

  const values = form.getValues();
  const quota = wholeNumber(values.quota);
  const add = wholeNumber(values.add_quota);
  const after = quotaAfterAdd(values);
  const groupOptions = [...new Set([...groups, ...(values.group ? [values.group] : [])])];
  const money = (n: number) => formatQuota(n, display);

  return (
    <DrawerForm
      opened={id !== null}
      onClose={onClose}
      title="编辑用户"
      form={form}
      onSubmit={submit}
      submitting={submitting}
      loading={user === null}
    >
      <TextInput label="用户名" placeholder="请输入新的用户名" withAsterisk autoComplete="off" {...form.getInputProps("username")} />
      <PasswordInput
        label="密码"
        placeholder={USER_FORM_MSG.passwordPlaceholder}
        autoComplete="new-password"
        {...form.getInputProps("password")}
      />
      <TextInput label="显示名称" placeholder="请输入新的显示名称" autoComplete="off" {...form.getInputProps("display_name")} />
      <Select
        label="分组"
        placeholder="请选择分组"
        data={groupOptions}
        allowDeselect={false}
        searchable
        comboboxProps={{ withinPortal: true }}
        {...form.getInputProps("group")}
      />
      <NumberInput
        label={`剩余额度${quota === null ? "" : `（${money(quota)}）`}`}
        placeholder="请输入新的剩余额度"
        allowDecimal={false}
        thousandSeparator=","
        {...form.getInputProps("quota")}
      />
      <NumberInput
        label="添加额度"
        placeholder={USER_FORM_MSG.addQuotaPlaceholder}
        allowDecimal={false}
        description={
          quota !== null && add !== null && add !== 0 && after !== null
            ? `新额度：${money(quota)} + ${money(add)} = ${money(after)}`
            : "保存时加到剩余额度上，负数为扣减"
        }
        {...form.getInputProps("add_quota")}
      />
      <Divider label={USER_SECURITY_MSG.title} labelPosition="center" />
      {user && <UserSecurity user={user} viewer={viewer} onCleared={(key) => setUser((u) => (u ? { ...u, [key]: "" } : u))} />}
    </DrawerForm>
  );
}
