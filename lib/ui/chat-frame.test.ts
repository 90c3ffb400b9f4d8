import { describe, expect, it } from "vitest";
import { chatTarget } from "@/lib/ui/chat-frame";
import { buildMenu } from "@/lib/ui/menu";
import type { ChatLink } from "@/lib/client/types";

const base = {
  chats: [
    { Next: 'https://next.example/#/?settings={"key":"{key}","url":"{address}"}' },
    { Lobe: "https://lobe.example/?k={key}" },
  ] as ChatLink[],
  chatLink: "",
  chatLink2: "",
  serverAddress: "https://qiao.example",
};
const KEY = "a".repeat(48);

describe("chatTarget", () => {
  it("fills the i-th Chats entry with the key and the server address", () => {
    expect(chatTarget(1, base, KEY)).toEqual({ url: `https://lobe.example/?k=sk-${KEY}` });
    expect(chatTarget(0, base, KEY)).toEqual({
      url: `https://next.example/#/?settings={"key":"sk-${KEY}","url":"${encodeURIComponent("https://qiao.example")}"}`,
    });
  });

  it("ChatLink serves /chat and ChatLink2 /chat2link, with the settings fragment", () => {
    const o = { ...base, chatLink: "https://chat.example/", chatLink2: "https://chat2.example" };
    const settings = encodeURIComponent(JSON.stringify({ key: `sk-${KEY}`, url: "https://qiao.example" }));
    expect(chatTarget("link", o, KEY)).toEqual({ url: `https://chat.example/#/?settings=${settings}` });
    expect(chatTarget("link2", o, KEY)).toEqual({ url: `https://chat2.example/#/?settings=${settings}` });
  });

  it("without ChatLink /chat falls back to the first Chats entry; without ChatLink2 there is no link", () => {
    expect(chatTarget("link", base, KEY)).toEqual(chatTarget(0, base, KEY));
    expect(chatTarget("link2", base, KEY)).toEqual({ error: "noLink" });
    expect(chatTarget("link", { ...base, chats: [] }, KEY)).toEqual({ error: "noLink" });
    expect(chatTarget(5, base, KEY)).toEqual({ error: "noLink" });
  });

  it("needs an enabled key, a parsable Chats list and an http(s) address", () => {
    expect(chatTarget(0, base, null)).toEqual({ error: "noToken" });
    expect(chatTarget(0, { ...base, chats: "[oops" }, KEY)).toEqual({ error: "parseFailed" });
    expect(chatTarget(0, { ...base, chats: [{ Bad: "javascript:alert(1)//{key}" }] }, KEY)).toEqual({ error: "badLink" });
    expect(chatTarget(0, { ...base, chats: [{ Bad: "not a url {key}" }] }, KEY)).toEqual({ error: "badLink" });
    expect(chatTarget(0, { ...base, chats: [{ Bad: "data:text/html,{key}" }] }, KEY)).toEqual({ error: "badLink" });
  });

  it("an app's own scheme (the default OpenCat entry) is opened, not framed", () => {
    expect(chatTarget(0, { ...base, chats: [{ OpenCat: "opencat://team/join?domain={address}&token={key}" }] }, KEY)).toEqual({
      url: `opencat://team/join?domain=${encodeURIComponent("https://qiao.example")}&token=sk-${KEY}`,
      external: true,
    });
  });
});

describe("the chat menu", () => {
  it("lists ChatLink and ChatLink2 beside the Chats entries when set", () => {
    const chat = (flags: Parameters<typeof buildMenu>[1]) =>
      buildMenu(1, flags)
        .find((e) => e.key === "chat")
        ?.children?.map((c) => c.href);
    expect(chat({ chats: [], chat_link: "https://a", chat_link2: "https://b" })).toEqual(["/chat", "/chat2link"]);
    expect(chat({ chats: [{ A: "https://a" }], chat_link: "" })).toEqual(["/chat/0"]);
    expect(chat({ chats: [] })).toBeUndefined();
  });
});
