"use client";
// Shown on every page to the root user while the default password is still set.
import { Alert, Anchor } from "@mantine/core";
import Link from "next/link";
import { isRoot } from "@/lib/auth/roles";
import { useSiteStatus } from "@/lib/client/hooks";
import type { StoredUser } from "@/lib/client/types";

export function DefaultPasswordAlert({ user }: { user: StoredUser | null }) {
  const status = useSiteStatus();
  if (!user || !isRoot(user) || !status?.root_default_password) return null;
  return (
    <Alert color="red" variant="filled" mb="md" role="alert" title="您正在使用默认密码！请立刻修改默认密码！">
      <Anchor component={Link} href="/setting?tab=personal" c="white" underline="always" fw={600}>
        前往 设置 → 个人设置 修改密码
      </Anchor>
    </Alert>
  );
}
