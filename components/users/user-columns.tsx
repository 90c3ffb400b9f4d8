"use client";
// The user table's columns (id, names, group, quotas, requests, role, status) and its row buttons,
// each disabled with the server's reason where it would refuse.
import { Badge, Button, Group, Text, Tooltip } from "@mantine/core";
import type { ReactNode } from "react";
import { QuotaText } from "@/components/data/display";
import type { Column } from "@/components/data/paged-table";
import { UserRole, UserStatus } from "@/components/users/user-badges";
import type { UserActions } from "@/components/users/use-user-actions";
import { USER_STATUS } from "@/lib/auth/roles";
import { type Actor, editRefusal, manageRefusal, type UserAction } from "@/lib/users/manage-rules";
import type { UserView } from "@/lib/users/view";

type Ctx = { manage: UserActions["manage"]; viewer: Actor; onEdit: (id: number) => void };

export function userColumns({ manage, viewer, onEdit }: Ctx): Column<UserView>[] {
  const actionButton = (u: UserView, action: UserAction, label: string, color: string) => (
    <RowButton
      key={action}
      label={label}
      color={color}
      reason={manageRefusal(viewer, u, action)?.message}
      loading={manage[action].busy(u)}
      onClick={() => manage[action].run(u)}
    />
  );
  return [
    { key: "id", title: "ID", render: (u) => u.id, width: 64 },
    {
      key: "username",
      title: "用户名",
      render: (u) => (
        <div>
          <Text size="sm" fw={500}>
            {u.username}
          </Text>
          {u.display_name && u.display_name !== u.username && (
            <Text size="xs" c="dimmed">
              {u.display_name}
            </Text>
          )}
        </div>
      ),
    },
    {
      key: "group",
      title: "分组",
      render: (u) => (
        <Badge variant="outline" color="gray" tt="none">
          {u.group}
        </Badge>
      ),
    },
    {
      key: "quota",
      title: "剩余额度 / 已用额度",
      render: (u) => (
        <div>
          <Text size="sm" c={u.quota < 0 ? "red" : undefined}>
            剩余 <QuotaText quota={u.quota} />
          </Text>
          <Text size="xs" c="dimmed">
            已用 <QuotaText quota={u.used_quota} />
          </Text>
        </div>
      ),
    },
    { key: "requests", title: "请求次数", render: (u) => u.request_count, align: "right" },
    { key: "role", title: "角色", render: (u) => <UserRole role={u.role} /> },
    { key: "status", title: "状态", render: (u) => <UserStatus status={u.status} deleted={u.DeletedAt !== null} /> },
    {
      key: "actions",
      title: "操作",
      render: (u) => {
        if (u.DeletedAt !== null) return null;
        const editBlocked = editRefusal(viewer, u);
        return (
          <Group gap={4} wrap="nowrap">
            {actionButton(u, "promote", "提升", "blue")}
            {actionButton(u, "demote", "降级", "grape")}
            {u.status === USER_STATUS.enabled ? actionButton(u, "disable", "禁用", "orange") : actionButton(u, "enable", "启用", "green")}
            {actionButton(u, "delete", "注销", "red")}
            <RowButton label="编辑" color="gray" reason={editBlocked ?? undefined} onClick={() => onEdit(u.id)} />
          </Group>
        );
      },
    },
  ];
}

/** A row action; when the server would refuse it, disabled with the reason as its tooltip. */
function RowButton(props: { label: string; color: string; reason?: string; loading?: boolean; onClick: () => void }): ReactNode {
  const button = (
    <Button size="compact-sm" variant="light" color={props.color} disabled={!!props.reason} loading={props.loading} onClick={props.onClick}>
      {props.label}
    </Button>
  );
  if (!props.reason) return button;
  return (
    <Tooltip label={props.reason} withArrow multiline maw={240}>
      <span>{button}</span>
    </Tooltip>
  );
}
