import { beforeEach, describe, expect, it } from "vitest";
import {
  clearUser,
  markNoticeSeen,
  noticeSeen,
  readIdSort,
  readPageSize,
  readUser,
  writeIdSort,
  writePageSize,
  writeStatus,
  writeUser,
} from "@/lib/client/storage";

class MemoryStorage {
  data = new Map<string, string>();
  getItem(k: string) {
    return this.data.has(k) ? this.data.get(k)! : null;
  }
  setItem(k: string, v: string) {
    this.data.set(k, String(v));
  }
  removeItem(k: string) {
    this.data.delete(k);
  }
}

let store: MemoryStorage;
beforeEach(() => {
  store = new MemoryStorage();
  (globalThis as { window?: unknown }).window = { localStorage: store, addEventListener() {}, removeEventListener() {} };
});

describe("local storage keys (spec §3)", () => {
  it("writes the status object and the keys derived from it", () => {
    writeStatus({
      system_name: "桥",
      chats: [{ ChatGPT: "https://chat/{key}" }],
      chat_link: "https://chat",
      chat_link2: "",
      default_collapse_sidebar: true,
      enable_data_export: false,
      enable_drawing: true,
      enable_task: false,
      mj_notify_enabled: true,
      footer_html: "<b>页脚</b>",
    });
    expect(JSON.parse(store.getItem("status")!).system_name).toBe("桥");
    expect(store.getItem("chats")).toBe('[{"ChatGPT":"https://chat/{key}"}]');
    expect(store.getItem("chat_link")).toBe("https://chat");
    expect(store.getItem("chat_link2")).toBeNull();
    expect(store.getItem("default_collapse_sidebar")).toBe("true");
    expect(store.getItem("enable_data_export")).toBe("false");
    expect(store.getItem("enable_drawing")).toBe("true");
    expect(store.getItem("enable_task")).toBe("false");
    expect(store.getItem("mj_notify_enabled")).toBe("true");
    expect(store.getItem("footer_html")).toBe("<b>页脚</b>");
  });

  it("removes the footer when the admin clears it", () => {
    store.setItem("footer_html", "<b>old</b>");
    writeStatus({ footer_html: "" });
    expect(store.getItem("footer_html")).toBeNull();
  });

  it("stores the user at login and forgets it at logout", () => {
    writeUser({ id: 3, username: "alice", role: 1 });
    expect(readUser()).toMatchObject({ id: 3, username: "alice" });
    clearUser();
    expect(store.getItem("user")).toBeNull();
    store.setItem("user", "{broken");
    expect(readUser()).toBeNull();
  });

  it("remembers page size and id sort for the list pages", () => {
    expect(readPageSize()).toBe(10);
    writePageSize(50);
    expect(store.getItem("page-size")).toBe("50");
    expect(readPageSize()).toBe(50);
    store.setItem("page-size", "7");
    expect(readPageSize()).toBe(10);
    writeIdSort(true);
    expect(store.getItem("id-sort")).toBe("true");
    expect(readIdSort()).toBe(true);
  });
});

describe("notice seen", () => {
  it("remembers the last notice each viewer was shown", () => {
    expect(noticeSeen("7", "维护")).toBe(false);
    markNoticeSeen("7", "维护");
    expect(noticeSeen("7", "维护")).toBe(true);
    expect(noticeSeen("guest", "维护")).toBe(false);
    expect(noticeSeen("7", "维护结束")).toBe(false);
    markNoticeSeen("guest", "维护");
    expect(noticeSeen("7", "维护")).toBe(true);
  });
  it("treats a corrupt entry as nothing seen", () => {
    store.setItem("notice_seen", "[not an object");
    expect(noticeSeen("7", "x")).toBe(false);
    markNoticeSeen("7", "x");
    expect(noticeSeen("7", "x")).toBe(true);
  });
});
