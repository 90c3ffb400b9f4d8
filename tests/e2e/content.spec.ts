// Admin-written content (footer, home page, about, notice) is rendered through the sanitizer.
import { expect, setOption, shot, test } from "./support";
import { ROOT_STATE } from "./env";

test.use({ storageState: ROOT_STATE });

const XSS = `<img src=x onerror="window.__xss=1"><a href="javascript:window.__xss=2">坏链接</a><script>window.__xss=3</script>`;

test("custom footer, home page and notice render sanitized", async ({ page }) => {
  try {
    await setOption(page.request, "Footer", `<b>自定义页脚</b> <a href="https://example.com" target="_blank">链接</a>${XSS}`);
    await setOption(page.request, "HomePageContent", `# 自定义首页\n\n**欢迎**\n\n${XSS}`);
    await setOption(page.request, "Notice", `系统维护通知 ${XSS}`);
    await page.goto("/");
    await expect(page.getByRole("heading", { name: "自定义首页" })).toBeVisible();
    await expect(page.getByText("系统维护通知")).toBeVisible();
    const footer = page.getByTestId("site-footer");
    await expect(footer).toContainText("自定义页脚");
    await expect(footer.getByRole("link", { name: "链接" })).toHaveAttribute("rel", "noopener noreferrer");
    // The javascript: href is gone, so the anchor is no longer even a link.
    const bad = footer.locator("a", { hasText: "坏链接" });
    await expect(bad).toHaveCount(1);
    expect(await bad.getAttribute("href")).toBeNull();
    await bad.click();
    expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator("main script").count()).toBe(0);
    await shot(page, "home-custom");
  } finally {
    await setOption(page.request, "Footer", "");
    await setOption(page.request, "HomePageContent", "");
    await setOption(page.request, "Notice", "");
  }
});

test("an about page given as a URL is embedded in a sandboxed frame", async ({ page }) => {
  try {
    await setOption(page.request, "About", "https://example.com/about");
    await page.goto("/about");
    const frame = page.locator('iframe[title="关于"]');
    await expect(frame).toHaveAttribute("src", "https://example.com/about");
    await expect(frame).toHaveAttribute("sandbox", "allow-scripts allow-same-origin allow-forms allow-popups");
  } finally {
    await setOption(page.request, "About", "");
  }
});
