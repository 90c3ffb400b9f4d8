import { describe, expect, it } from "vitest";
import { isEmbeddableUrl } from "@/lib/ui/content";

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
