import { describe, expect, it } from "vitest";
import { CHAT_MSG, chat2LinkTarget, chatFrameTarget } from "@/lib/ui/chat-link";

const KEY = "sk-abc123";
const ADDRESS = "https://qiao.example.com";
const chats: Array<Record<string, string>> = [
  { NextChat: 'https://app.nextchat.dev/#/?settings={"key":"{key}","url":"{address}"}' },
  { OpenCat: "opencat://team/join?domain={address}&token={key}" },
  { 坏链接: "javascript:alert(1)//{key}" },
  { 不是链接: "not a url {key}" },
];

describe("chatFrameTarget", () => {
  it("fills the key and the encoded server address into the id-th link", () => {
    expect(chatFrameTarget(chats, "0", KEY, ADDRESS)).toEqual({
      kind: "frame",
      name: "NextChat",
      url: `https://app.nextchat.dev/#/?settings={"key":"sk-abc123","url":"https%3A%2F%2Fqiao.example.com"}`,
    });
    expect(chatFrameTarget(chats, undefined, KEY, ADDRESS)).toMatchObject({ kind: "frame", name: "NextChat" });
  });

  it("accepts the JSON-string form and gives an app link for a client's own scheme", () => {
    expect(chatFrameTarget(JSON.stringify(chats), "1", "abc123", ADDRESS)).toEqual({
      kind: "app",
      name: "OpenCat",
      url: "opencat://team/join?domain=https%3A%2F%2Fqiao.example.com&token=sk-abc123",
    });
  });

  it("refuses script URLs, non-URLs and ids outside the list as bad configuration", () => {
    for (const id of ["2", "3", "4", "-1", "x", "1e3"]) {
      expect(chatFrameTarget(chats, id, KEY, ADDRESS)).toEqual({ kind: "error", message: CHAT_MSG.badConfig });
    }
    expect(chatFrameTarget([{ 空: " " }], "0", KEY, ADDRESS)).toEqual({ kind: "error", message: CHAT_MSG.badConfig });
  });

  it("says when the chats cannot be parsed and when there are none", () => {
    expect(chatFrameTarget("{not json", "0", KEY, ADDRESS)).toEqual({ kind: "error", message: CHAT_MSG.parseFailed });
    expect(chatFrameTarget('[{"a":1}]', "0", KEY, ADDRESS)).toEqual({ kind: "error", message: CHAT_MSG.parseFailed });
    expect(chatFrameTarget([], "0", KEY, ADDRESS)).toEqual({ kind: "error", message: CHAT_MSG.none });
  });

  it("asks for a token only once the configuration is usable", () => {
    expect(chatFrameTarget(chats, "0", null, ADDRESS)).toEqual({ kind: "no-token" });
    expect(chatFrameTarget(chats, "9", null, ADDRESS)).toEqual({ kind: "error", message: CHAT_MSG.badConfig });
  });
});

describe("chat2LinkTarget", () => {
  it("gives ChatLink the key and address in its settings fragment", () => {
    expect(chat2LinkTarget("https://chat.example.com/", KEY, ADDRESS)).toEqual({
      kind: "frame",
      name: "ChatLink",
      url: 'https://chat.example.com/#/?settings={"key":"sk-abc123","url":"https%3A%2F%2Fqiao.example.com"}',
    });
  });

  it("fills a template with placeholders instead", () => {
    expect(chat2LinkTarget("https://c.example/?k={key}&a={address}", "abc123", ADDRESS)).toMatchObject({
      url: "https://c.example/?k=sk-abc123&a=https%3A%2F%2Fqiao.example.com",
    });
  });

  it("reports a missing link, a missing token and a script link", () => {
    expect(chat2LinkTarget(" ", KEY, ADDRESS)).toEqual({ kind: "error", message: CHAT_MSG.none });
    expect(chat2LinkTarget("https://chat.example.com", null, ADDRESS)).toEqual({ kind: "no-token" });
    expect(chat2LinkTarget("javascript:alert(1)", KEY, ADDRESS)).toEqual({ kind: "error", message: CHAT_MSG.badConfig });
  });
});
