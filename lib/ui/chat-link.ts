// The chat pages of spec §2: /chat/{id} embeds the id-th configured chat link (option Chats,
// `{key}` and `{address}` filled in with the user's first enabled token and the server address),
// /chat2link sends the user to ChatLink. Pure, so every message of spec §8 is unit-tested.
import { fillChatLink, parseChats } from "@/lib/ui/menu";
import type { SiteStatus } from "@/lib/ui/site-status";

export const CHAT_MSG = {
  badConfig: "聊天链接配置错误，请联系管理员",
  parseFailed: "聊天数据解析失败",
  none: "请联系管理员配置聊天链接",
  noToken: "当前没有可用的启用令牌，请确认是否有令牌处于启用状态！",
} as const;

/** The no-token message stays this long before the page goes to /token (spec §8). */
export const NO_TOKEN_REDIRECT_MS = 1500;

/** Third-party chat clients run their own scripts and forms, but cannot navigate the console. */
export const CHAT_IFRAME_SANDBOX = "allow-scripts allow-same-origin allow-forms allow-popups allow-downloads allow-modals";

export type ChatTarget =
  /** An http(s) page, shown in the frame. */
  | { kind: "frame"; name: string; url: string }
  /** A client app's own scheme (ama://, opencat://): a browser cannot frame it; the user opens it. */
  | { kind: "app"; name: string; url: string }
  | { kind: "no-token" }
  | { kind: "error"; message: string };

// Schemes that run code or read local data in the console's context: never followed.
const UNSAFE_SCHEMES = new Set(["javascript:", "vbscript:", "data:", "blob:", "file:", "about:", "filesystem:"]);

/** What a filled-in link may become: a page (http/https), an app link, or the bad-config error. */
function classify(name: string, url: string): Exclude<ChatTarget, { kind: "no-token" }> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { kind: "error", message: CHAT_MSG.badConfig };
  }
  if (parsed.protocol === "http:" || parsed.protocol === "https:") return { kind: "frame", name, url };
  if (UNSAFE_SCHEMES.has(parsed.protocol)) return { kind: "error", message: CHAT_MSG.badConfig };
  return { kind: "app", name, url };
}

/**
 * The target of /chat/{id}. `id` is the link's index in Chats (absent: the first); `key` is the
 * user's first enabled token (null: none). Configuration errors come first: sending the user to
 * create a token would not help them.
 */
export function chatFrameTarget(chats: SiteStatus["chats"], id: string | undefined, key: string | null, serverAddress: string): ChatTarget {
  const { links, error } = parseChats(chats);
  if (error) return { kind: "error", message: CHAT_MSG.parseFailed };
  if (links.length === 0) return { kind: "error", message: CHAT_MSG.none };
  const index = id === undefined ? 0 : /^\d{1,6}$/.test(id) ? Number(id) : -1;
  const link = links[index];
  if (!link) return { kind: "error", message: CHAT_MSG.badConfig };
  const [name, template] = Object.entries(link)[0] ?? [];
  if (!name || !template?.trim()) return { kind: "error", message: CHAT_MSG.badConfig };
  if (key === null) return { kind: "no-token" };
  return chatLinkTarget(name, template, key, serverAddress);
}

/** One chat link filled in for `key` (the token page's chat buttons and the frame). */
export function chatLinkTarget(name: string, template: string, key: string, serverAddress: string) {
  return classify(name, fillChatLink(template.trim(), key, serverAddress));
}

/** ChatLink or ChatLink2 as a chat menu entry of the token page. */
export type LegacyChatLink = { label: string; link: string };

/** The token page's entries for the two single chat links, when set (new-api's 默认聊天 and its second link). */
export function legacyChatLinks(chatLink: string, chatLink2: string): LegacyChatLink[] {
  return [
    { label: CHAT_LINK_LABELS.chatLink, link: chatLink.trim() },
    { label: CHAT_LINK_LABELS.chatLink2, link: chatLink2.trim() },
  ].filter((l) => l.link !== "");
}

export const CHAT_LINK_LABELS = { chatLink: "默认聊天", chatLink2: "聊天页面 2" } as const;

/**
 * The target of /chat2link: ChatLink, a ChatGPT-Next-Web style address given the key and the
 * server in its settings fragment (as the original), or a template with `{key}`/`{address}`.
 */
export function chat2LinkTarget(chatLink: string, key: string | null, serverAddress: string): ChatTarget {
  const base = chatLink.trim();
  if (!base) return { kind: "error", message: CHAT_MSG.none };
  if (key === null) return { kind: "no-token" };
  const fullKey = key.startsWith("sk-") ? key : `sk-${key}`;
  const url =
    base.includes("{key}") || base.includes("{address}")
      ? fillChatLink(base, fullKey, serverAddress)
      : `${base.replace(/\/+$/, "")}/#/?settings=${JSON.stringify({ key: fullKey, url: encodeURIComponent(serverAddress) })}`;
  return classify("ChatLink", url);
}
