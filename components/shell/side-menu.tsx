"use client";
// Side menu of spec §2: entries by role and server feature flags (lib/ui/menu.ts).
import { NavLink, ScrollArea } from "@mantine/core";
import Link from "next/link";
import { useEffect, useMemo } from "react";
import { Icon } from "@/components/icons";
import { useSiteStatus } from "@/lib/client/hooks";
import { showError } from "@/lib/client/notify";
import { buildMenu, isActivePath, parseChats } from "@/lib/ui/menu";

export function SideMenu({ role, pathname }: { role: number; pathname: string }) {
  const status = useSiteStatus();
  const entries = useMemo(
    () =>
      buildMenu(role, {
        chats: status?.chats,
        chat_link: status?.chat_link,
        chat_link2: status?.chat_link2,
        enable_data_export: status?.enable_data_export,
        enable_drawing: status?.enable_drawing,
        enable_task: status?.enable_task,
      }),
    [role, status?.chats, status?.chat_link, status?.chat_link2, status?.enable_data_export, status?.enable_drawing, status?.enable_task],
  );

  const chatsBroken = status ? parseChats(status.chats).error : false;
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
