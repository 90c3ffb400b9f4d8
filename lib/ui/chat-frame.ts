// Where the chat frame (spec §2 "Chat frame", route /chat/{id?}) and /chat2link send a user: a
// configured chat link with the user's key filled in. Pure, so the pages and tests share it.
import type { ChatLink } from "@/lib/client/types";
import { fillChatLink, fillLegacyChatLink, parseChats } from "@/lib/ui/menu";

export const CHAT_FRAME_MSG = {
  /** Spec §8: no enabled token; the page then goes to /token after 1.5 s. */
  noToken: "当前没有可用的启用令牌，请确认是否有令牌处于启用状态！",
  /** Spec §8: no chat links. */
  noLink: "请联系管理员配置聊天链接",
  /** Spec §8: a chat link that does not make an address. */
  badLink: "聊天链接配置错误，请联系管理员",
  /** Spec §8: the Chats option cannot be parsed. */
  parseFailed: "聊天数据解析失败",
} as const;

/** `external`: an app's own scheme (ama://, opencat://…): opened, not framed. */
export type ChatTarget = { url: string; external?: true } | { error: keyof typeof CHAT_FRAME_MSG };

/** Schemes that run code or read local files: never opened, whatever the admin configured. */
const REFUSED_SCHEMES = new Set(["javascript:", "data:", "vbscript:", "file:", "blob:"]);

/**
 * `which`: the index of a Chats entry (/chat/{i}), "link" (/chat: ChatLink, else the first Chats
 * entry) or "link2" (/chat2link: ChatLink2). `key` is the user's enabled key (null: none).
 */
export function chatTarget(
  which: number | "link" | "link2",
  o: { chats: ChatLink[] | string; chatLink: string; chatLink2: string; serverAddress: string },
  key: string | null,
): ChatTarget {
  const chats = parseChats(o.chats);
  let url: string | null = null;
  if (typeof which === "number") {
    const entry = chats.links[which];
    if (!entry) return { error: chats.error ? "parseFailed" : "noLink" };
    if (key === null) return { error: "noToken" };
    url = fillChatLink(Object.values(entry)[0] ?? "", key, o.serverAddress);
  } else {
    const link = which === "link2" ? o.chatLink2 : o.chatLink;
    if (!link && which === "link" && chats.links[0]) return chatTarget(0, o, key);
    if (!link) return { error: "noLink" };
    if (key === null) return { error: "noToken" };
    url = fillLegacyChatLink(link, key, o.serverAddress);
  }
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    return { error: "badLink" };
  }
  if (REFUSED_SCHEMES.has(protocol)) return { error: "badLink" };
  return protocol === "https:" || protocol === "http:" ? { url } : { url, external: true };
}
