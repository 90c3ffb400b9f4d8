"use client";
// Top bar of spec §2: menu burger, logo and name, 首页, 关于, New Year ornament, theme switch,
// then login/register links (register only while registration is open) or the user menu.
import { ActionIcon, Burger, Button, Group } from "@mantine/core";
import Link from "next/link";
import { Icon } from "@/components/icons";
import { BrandLink } from "@/components/shell/brand-link";
import { ColorSchemeToggle } from "@/components/shell/color-scheme-toggle";
import { NewYearOrnament } from "@/components/shell/new-year-ornament";
import { UserMenu } from "@/components/shell/user-menu";
import type { StoredUser } from "@/lib/client/types";

export type MenuToggles = {
  mobileOpened: boolean;
  desktopOpened: boolean;
  toggleMobile: () => void;
  toggleDesktop: () => void;
};

export function TopBar({ menu, user, registerOpen }: { menu: MenuToggles | null; user: StoredUser | null; registerOpen: boolean }) {
  return (
    <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="xs">
      <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
        {menu && (
          <>
            <Burger
              opened={menu.mobileOpened}
              onClick={menu.toggleMobile}
              hiddenFrom="sm"
              size="sm"
              aria-label={menu.mobileOpened ? "收起侧边栏" : "展开侧边栏"}
            />
            <ActionIcon
              variant="subtle"
              color="gray"
              size="lg"
              onClick={menu.toggleDesktop}
              visibleFrom="sm"
              aria-label={menu.desktopOpened ? "收起侧边栏" : "展开侧边栏"}
              title={menu.desktopOpened ? "收起侧边栏" : "展开侧边栏"}
            >
              <Icon name={menu.desktopOpened ? "sidebarCollapse" : "sidebarExpand"} size={20} />
            </ActionIcon>
          </>
        )}
        <BrandLink />
        <Group gap={4} wrap="nowrap" component="nav" aria-label="顶部导航">
          <Button component={Link} href="/" variant="subtle" color="gray" size="compact-sm">
            首页
          </Button>
          <Button component={Link} href="/about" variant="subtle" color="gray" size="compact-sm">
            关于
          </Button>
        </Group>
      </Group>
      <Group gap="xs" wrap="nowrap">
        <NewYearOrnament />
        <ColorSchemeToggle />
        {user ? (
          <UserMenu user={user} />
        ) : (
          <Group gap={4} wrap="nowrap">
            <Button component={Link} href="/login" variant="subtle" size="compact-sm">
              登录
            </Button>
            {registerOpen && (
              <Button component={Link} href="/register" variant="light" size="compact-sm">
                注册
              </Button>
            )}
          </Group>
        )}
      </Group>
    </Group>
  );
}
