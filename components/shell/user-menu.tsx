"use client";
// Avatar (first letter), username and a menu with 退出 (spec §2).
import { Avatar, Group, Menu, Text, UnstyledButton } from "@mantine/core";
import { useRouter } from "next/navigation";
import { Icon } from "@/components/icons";
import { logout } from "@/lib/client/session";
import type { StoredUser } from "@/lib/client/types";

const AVATAR_COLORS = ["blue", "cyan", "teal", "green", "lime", "orange", "red", "pink", "grape", "violet", "indigo"];

/** A stable color per username, like the original's stringToColor. */
function colorFor(name: string): string {
  let sum = 0;
  for (const ch of name) sum += ch.codePointAt(0) ?? 0;
  return AVATAR_COLORS[sum % AVATAR_COLORS.length]!;
}

export function UserMenu({ user }: { user: StoredUser }) {
  const router = useRouter();
  const name = user.username || "?";
  const onLogout = async () => {
    await logout();
    router.push("/login");
  };
  return (
    <Menu position="bottom-end" withArrow shadow="md">
      <Menu.Target>
        <UnstyledButton aria-label={`用户菜单：${name}`} data-testid="user-menu">
          <Group gap={6} wrap="nowrap">
            <Avatar color={colorFor(name)} radius="xl" size={30}>
              {Array.from(name)[0]?.toUpperCase()}
            </Avatar>
            <Text size="sm" fw={500} visibleFrom="sm" truncate="end" maw={140}>
              {name}
            </Text>
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label hiddenFrom="sm">{name}</Menu.Label>
        <Menu.Item leftSection={<Icon name="logout" size={16} />} onClick={onLogout}>
          退出
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
