"use client";
// The add-user drawer (spec §2 manage users, §5 Users: username and password required).
import { PasswordInput, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { DrawerForm } from "@/components/data/drawer-form";
import { api } from "@/lib/client/api";
import { showSuccess } from "@/lib/client/notify";
import { type AddUserValues, addUserErrors, USER_FORM_MSG } from "@/lib/users/form";

const EMPTY: AddUserValues = { username: "", display_name: "", password: "" };

export function UserAddDrawer({ opened, onClose, onSaved }: { opened: boolean; onClose: () => void; onSaved: () => void }) {
  const [submitting, setSubmitting] = useState(false);
  const form = useForm<AddUserValues>({ initialValues: EMPTY, validate: addUserErrors });

  const submit = async () => {
    const v = form.getValues();
    setSubmitting(true);
    const res = await api("POST", "/api/user/", { username: v.username.trim(), display_name: v.display_name.trim(), password: v.password });
    setSubmitting(false);
    if (!res.success) return;
    showSuccess(USER_FORM_MSG.created);
    onSaved();
  };

  return (
    <DrawerForm
      opened={opened}
      onClose={onClose}
      title="添加用户"
      form={form}
      onSubmit={submit}
      submitting={submitting}
      onClosed={form.reset}
    >
      <TextInput label="用户名" placeholder="请输入用户名" withAsterisk autoComplete="off" {...form.getInputProps("username")} />
      <TextInput label="显示名称" placeholder="请输入显示名称" autoComplete="off" {...form.getInputProps("display_name")} />
      <PasswordInput label="密码" placeholder="请输入密码" withAsterisk autoComplete="new-password" {...form.getInputProps("password")} />
    </DrawerForm>
  );
}
