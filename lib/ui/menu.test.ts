import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildMenu, isActivePath, parseChats } from "@/lib/ui/menu";

const labels = (role: number, flags = {}) => buildMenu(role, flags).map((e) => e.label);

describe("buildMenu", () => {
  it("hides admin entries and disabled features from an ordinary user", () => {
    expect(labels(1)).toEqual(["操练场", "模型价格", "令牌", "钱包", "日志", "设置"]);
  });
  it("shows channel, redemption, top-up orders and user management to admins, in the spec order", () => {
    expect(labels(10)).toEqual(["操练场", "模型价格", "渠道", "令牌", "兑换码", "充值订单", "钱包", "用户管理", "日志", "设置"]);
    expect(labels(100)).toContain("用户管理");
  });
  it("shows the audit trail to root only, before the settings", () => {
    expect(labels(10)).not.toContain("审计日志");
    expect(labels(100)).toEqual([
      "操练场",
      "模型价格",
      "渠道",
      "令牌",
      "兑换码",
      "充值订单",
      "钱包",
      "用户管理",
      "日志",
      "审计日志",
      "设置",
    ]);
  });
  it("shows the dashboard entry only when the server enables it", () => {
    expect(labels(1, { enable_data_export: true })).toEqual(["操练场", "模型价格", "令牌", "钱包", "日志", "数据看板", "设置"]);
  });
  it("shows drawing and async tasks each only when the server enables it, after the dashboard", () => {
    expect(labels(1, { enable_drawing: true })).toEqual(["操练场", "模型价格", "令牌", "钱包", "日志", "绘图", "设置"]);
    expect(labels(1, { enable_task: true })).toEqual(["操练场", "模型价格", "令牌", "钱包", "日志", "异步任务", "设置"]);
    expect(labels(1, { enable_data_export: true, enable_drawing: true, enable_task: true })).toEqual([
      "操练场",
      "模型价格",
      "令牌",
      "钱包",
      "日志",
      "数据看板",
      "绘图",
      "异步任务",
      "设置",
    ]);
  });
  it("links only to pages that exist (a missing one would be prefetched, and 404, on every page)", () => {
    const menu = buildMenu(100, { enable_data_export: true, enable_drawing: true, enable_task: true, chats: [{ A: "https://a" }] });
    const hrefs = menu.flatMap((e) => (e.children ? e.children.map((c) => c.href) : [e.href!]));
    const pageFile = (href: string) => {
      const dir = path.join(process.cwd(), "app", href);
      // /chat/0 is served by app/chat/[[...id]]/page.tsx.
      return [path.join(dir, "page.tsx"), path.join(path.dirname(dir), "[[...id]]", "page.tsx")].some((f) => existsSync(f));
    };
    expect(hrefs).toEqual(expect.arrayContaining(["/midjourney", "/task", "/chat/0"]));
    expect(hrefs.filter((href) => !pageFile(href))).toEqual([]);
  });
  it("lists configured chats as sub-items of 聊天", () => {
    const menu = buildMenu(1, { chats: [{ "ChatGPT Next": "https://a/{key}" }, { Lobe: "https://b" }] });
    const chat = menu.find((e) => e.key === "chat");
    expect(chat?.children).toEqual([
      { key: "chat0", label: "ChatGPT Next", href: "/chat/0" },
      { key: "chat1", label: "Lobe", href: "/chat/1" },
    ]);
    expect(menu.map((e) => e.label).indexOf("聊天")).toBe(2);
  });
  it("accepts the chats option as a JSON string and omits 聊天 when there are none", () => {
    expect(buildMenu(1, { chats: '[{"A":"https://a"}]' }).find((e) => e.key === "chat")?.children).toHaveLength(1);
    expect(labels(1, { chats: [] })).not.toContain("聊天");
  });
});

describe("parseChats", () => {
  it("reports unparsable chat data", () => {
    expect(parseChats("{not json").error).toBe(true);
    expect(parseChats('{"a":"b"}').error).toBe(true);
    expect(parseChats(undefined)).toEqual({ links: [], error: false });
  });
});

describe("isActivePath", () => {
  it("matches the page and its sub-pages only", () => {
    expect(isActivePath("/channel", "/channel")).toBe(true);
    expect(isActivePath("/channel/edit/3", "/channel")).toBe(true);
    expect(isActivePath("/channels", "/channel")).toBe(false);
  });
});
