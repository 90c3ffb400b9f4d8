"use client";
// The console frame of spec §2: top bar, side menu (for logged-in users), content, footer.
import { AppShell } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { usePathname } from "next/navigation";
import { useEffect, type ReactNode } from "react";
import { DefaultPasswordAlert } from "@/components/shell/default-password-alert";
import { SideMenu } from "@/components/shell/side-menu";
import type { MenuFlags } from "@/lib/ui/menu";
import { SiteFooter } from "@/components/shell/site-footer";
import { TopBar } from "@/components/shell/top-bar";
import { useAppStart } from "@/components/shell/use-app-start";
import { useDocumentTitle } from "@/components/shell/use-document-title";
import { useSidebarState } from "@/components/shell/use-sidebar-state";
import { useStoredUser } from "@/lib/client/hooks";

const HEADER_HEIGHT = 56;

/**
 * `registerOpen`: the RegisterEnabled option as the server rendered this page (no flash of 注册).
 * `menuFlags`: the side menu's feature flags as the server rendered it, so the menu's first render
 * already has every entry and nothing shifts under a click once the stored status is read.
 */
export function ConsoleShell({ registerOpen, menuFlags, children }: { registerOpen: boolean; menuFlags: MenuFlags; children: ReactNode }) {
  useAppStart();
  const user = useStoredUser();
  const pathname = usePathname();
  useDocumentTitle(pathname);
  const [mobileOpened, { toggle: toggleMobile, close: closeMobile }] = useDisclosure(false);
  const [desktopOpened, toggleDesktop] = useSidebarState();
  const showMenu = !!user;

  // biome-ignore lint/correctness/useExhaustiveDependencies: a navigation (pathname) closes the mobile menu
  useEffect(() => closeMobile(), [pathname, closeMobile]);

  return (
    <AppShell
      header={{ height: HEADER_HEIGHT }}
      navbar={showMenu ? { width: 200, breakpoint: "sm", collapsed: { mobile: !mobileOpened, desktop: !desktopOpened } } : undefined}
      padding="md"
    >
      <AppShell.Header>
        <TopBar
          menu={showMenu ? { mobileOpened, desktopOpened, toggleMobile, toggleDesktop } : null}
          user={user}
          registerOpen={registerOpen}
        />
      </AppShell.Header>
      {showMenu && (
        <AppShell.Navbar aria-label="侧边菜单">
          <SideMenu role={user.role} pathname={pathname} serverFlags={menuFlags} />
        </AppShell.Navbar>
      )}
      <AppShell.Main style={{ display: "flex", flexDirection: "column" }}>
        <DefaultPasswordAlert user={user} />
        <div style={{ flex: 1, minWidth: 0 }}>{children}</div>
        <SiteFooter />
      </AppShell.Main>
    </AppShell>
  );
}
