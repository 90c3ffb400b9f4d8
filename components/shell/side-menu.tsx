"use client";
// Side menu of spec §2: entries by role and server feature flags (lib/ui/menu.ts).
import { NavLink, ScrollArea } from "@mantine/core";
import Link from "next/link";
import { useEffect, useMemo } from "react";
import { Icon } from "@/components/icons";
import { useSiteStatus } from "@/lib/client/hooks";
import { showError } from "@/lib/client/notify";
import { buildMenu, isActivePath, type MenuFlags, parseChats } from "@/lib/ui/menu";

/** `serverFlags`: the flags the server rendered with, used until the stored status is read. */
export function SideMenu({ role, pathname, serverFlags }: { role: number; pathname: string; serverFlags: MenuFlags }) {
  const status = useSiteStatus() ?? serverFlags;
  const { chats, enable_data_export, enable_drawing, enable_task } = status;
  const entries = useMemo(
    () => buildMenu(role, { chats, enable_data_export, enable_drawing, enable_task }),
    [role, chats, enable_data_export, enable_drawing, enable_task],
  );

  const chatsBroken = parseChats(chats).error;
  useEffect(() => {
    if (chatsBroken) showError("聊天数据解析失败");
  }, [chatsBroken]);

  return (
    <ScrollArea p="xs" type="auto">
      {entries.map((entry) =>
        entry.children ? (
          <NavLink
            key={entry.key}
            label={entry.label}
            leftSection={<Icon name={entry.key} />}
            defaultOpened={entry.children.some((c) => isActivePath(pathname, c.href))}
            childrenOffset={28}
          >
            {entry.children.map((child) => (
              <NavLink key={child.key} component={Link} href={child.href} label={child.label} active={isActivePath(pathname, child.href)} />
            ))}
          </NavLink>
        ) : (
          <NavLink
            key={entry.key}
            component={Link}
            href={entry.href!}
            label={entry.label}
            leftSection={<Icon name={entry.key} />}
            active={isActivePath(pathname, entry.href!)}
            style={{ borderRadius: "var(--mantine-radius-sm)" }}
          />
        ),
      )}
    </ScrollArea>
  );
}
