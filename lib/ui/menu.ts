// The side menu of spec §2, decided from the caller's role and the server's feature flags.
import { ROLE } from "@/lib/auth/roles";
import type { ChatLink, SiteStatus } from "@/lib/ui/site-status";

export type MenuIcon =
  | "playground"
  | "pricing"
  | "channel"
  | "chat"
  | "token"
  | "redemption"
  | "orders"
  | "topup"
  | "user"
  | "log"
  | "detail"
  | "midjourney"
  | "task"
  | "audit"
  | "setting";

export type MenuEntry = {
  key: MenuIcon;
  label: string;
  href?: string;
  children?: { key: string; label: string; href: string }[];
};

export type MenuFlags = Pick<SiteStatus, "chats" | "enable_data_export" | "enable_drawing" | "enable_task">;

/** The chat links of the status, tolerating the JSON-string form of the Chats option. */
export function parseChats(chats: SiteStatus["chats"]): { links: ChatLink[]; error: boolean } {
  if (chats === undefined || chats === null || chats === "") return { links: [], error: false };
  let value: unknown = chats;
  if (typeof chats === "string") {
    try {
      value = JSON.parse(chats);
    } catch {
      return { links: [], error: true };
    }
  }
  if (!Array.isArray(value)) return { links: [], error: true };
  const links = value.filter(
    (item): item is ChatLink =>
      !!item && typeof item === "object" && !Array.isArray(item) && Object.values(item).every((v) => typeof v === "string"),
  );
  return { links, error: links.length !== value.length };
}

export function buildMenu(role: number, flags: MenuFlags): MenuEntry[] {
  const admin = role >= ROLE.admin;
  const root = role >= ROLE.root;
  const chats = parseChats(flags.chats).links;
  const entries: (MenuEntry | false)[] = [
    { key: "playground", label: "操练场", href: "/playground" },
    { key: "pricing", label: "模型价格", href: "/pricing" },
    admin && { key: "channel", label: "渠道", href: "/channel" },
    chats.length > 0 && {
      key: "chat",
      label: "聊天",
      children: chats.map((chat, i) => ({ key: `chat${i}`, label: Object.keys(chat)[0] ?? `聊天 ${i + 1}`, href: `/chat/${i}` })),
    },
    { key: "token", label: "令牌", href: "/token" },
    admin && { key: "redemption", label: "兑换码", href: "/redemption" },
    admin && { key: "orders", label: "充值订单", href: "/orders" },
    { key: "topup", label: "钱包", href: "/topup" },
    admin && { key: "user", label: "用户管理", href: "/user" },
    { key: "log", label: "日志", href: "/log" },
    !!flags.enable_data_export && { key: "detail", label: "数据看板", href: "/detail" },
    !!flags.enable_drawing && { key: "midjourney", label: "绘图", href: "/midjourney" },
    !!flags.enable_task && { key: "task", label: "异步任务", href: "/task" },
    root && { key: "audit", label: "审计日志", href: "/audit" },
    { key: "setting", label: "设置", href: "/setting" },
  ];
  return entries.filter((e): e is MenuEntry => !!e);
}

/** Whether a menu link is the current page (exact, or a sub-path such as /channel/edit/3). */
export function isActivePath(pathname: string, href: string): boolean {
  return pathname === href || pathname.startsWith(`${href}/`);
}

/** A chat link with `{key}` (the whole sk- key) and `{address}` (the server address) filled in. */
export function fillChatLink(template: string, key: string, serverAddress: string): string {
  const fullKey = key.startsWith("sk-") ? key : `sk-${key}`;
  return template.replaceAll("{address}", encodeURIComponent(serverAddress)).replaceAll("{key}", fullKey);
}
