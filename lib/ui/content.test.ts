import { describe, expect, it } from "vitest";
import { CONTENT_IFRAME_SANDBOX, contentSandbox, isEmbeddableUrl, SAME_ORIGIN_CONTENT_SANDBOX } from "@/lib/ui/content";

describe("isEmbeddableUrl", () => {
  it("treats http(s) addresses as pages to embed", () => {
    expect(isEmbeddableUrl("https://example.com/home")).toBe(true);
    expect(isEmbeddableUrl("  http://example.com")).toBe(true);
  });
  it("treats everything else as Markdown/HTML", () => {
    expect(isEmbeddableUrl("# 欢迎")).toBe(false);
    expect(isEmbeddableUrl("javascript:alert(1)")).toBe(false);
    expect(isEmbeddableUrl("<a href='https://x'>x</a>")).toBe(false);
    expect(isEmbeddableUrl("")).toBe(false);
  });
});

describe("contentSandbox", () => {
  it("lets another site's page keep its own origin", () => {
    expect(contentSandbox("https://example.com/about", "https://qiao.example")).toBe(CONTENT_IFRAME_SANDBOX);
  });
  it("never gives a page of the console's own origin both scripts and that origin", () => {
    expect(contentSandbox("https://qiao.example/api/about", "https://qiao.example")).toBe(SAME_ORIGIN_CONTENT_SANDBOX);
    expect(SAME_ORIGIN_CONTENT_SANDBOX).not.toContain("allow-same-origin");
  });
});
