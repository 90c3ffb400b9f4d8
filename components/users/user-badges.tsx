// Role and status of a user row (spec §3 User, §4 User actions): a soft-deleted user reads 已注销
// whatever its status.
import { Badge } from "@mantine/core";
import { ROLE, USER_STATUS } from "@/lib/auth/roles";

const ROLES: Record<number, { label: string; color: string }> = {
  [ROLE.user]: { label: "普通用户", color: "gray" },
  [ROLE.admin]: { label: "管理员", color: "blue" },
  [ROLE.root]: { label: "超级管理员", color: "yellow" },
};

const STATUSES: Record<number, { label: string; color: string }> = {
  [USER_STATUS.enabled]: { label: "已激活", color: "green" },
  [USER_STATUS.disabled]: { label: "已封禁", color: "red" },
  [USER_STATUS.special]: { label: "特殊", color: "violet" },
};

export function UserRole({ role }: { role: number }) {
  const look = ROLES[role] ?? { label: "未知身份", color: "gray" };
  return (
    <Badge color={look.color} variant="light">
      {look.label}
    </Badge>
  );
}

export function UserStatus({ status, deleted }: { status: number; deleted: boolean }) {
  const look = deleted ? { label: "已注销", color: "gray" } : (STATUSES[status] ?? { label: "未知状态", color: "gray" });
  return (
    <Badge color={look.color} variant={deleted ? "outline" : "light"}>
      {look.label}
    </Badge>
  );
}
