import { describe, expect, it } from "vitest";
import { renderMarkdown, renderMarkdownBlocks, sanitizeHtml } from "@/lib/sanitize";

// Classic payloads (OWASP XSS filter evasion cheat sheet, PortSwigger XSS cheat sheet).
const HTML_PAYLOADS = [
  `<script>alert(1)</script>`,
  `<SCRIPT SRC=https://evil.example/x.js></SCRIPT>`,
  `<img src=x onerror=alert(1)>`,
  `<IMG SRC="javascript:alert('XSS');">`,
  `<img src="jav&#x09;ascript:alert(1)">`,
  `<svg onload=alert(1)>`,
  `<svg><script>alert(1)</script></svg>`,
  `<svg><a xlink:href="javascript:alert(1)"><text x="20" y="20">x</text></a></svg>`,
  `<body onload=alert(1)>`,
  `<a href="javascript:alert(1)">x</a>`,
  `<a href="JaVaScRiPt:alert(1)">x</a>`,
  `<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">x</a>`,
  `<a href="java\tscript:alert(1)">x</a>`,
  `<a href="\x01javascript:alert(1)">x</a>`,
  `<a href=" javascript:alert(1)">x</a>`,
  `<a href="vbscript:msgbox(1)">x</a>`,
  `<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>`,
  `<img src="data:text/html,<script>alert(1)</script>">`,
  `<iframe src="https://evil.example"></iframe>`,
  `<iframe srcdoc="<script>alert(1)</script>"></iframe>`,
  `<object data="javascript:alert(1)"></object>`,
  `<embed src="javascript:alert(1)">`,
  `<form action="javascript:alert(1)"><button>go</button></form>`,
  `<button formaction="javascript:alert(1)">x</button>`,
  `<input onfocus=alert(1) autofocus>`,
  `<details open ontoggle=alert(1)>`,
  `<video><source onerror="alert(1)"></video>`,
  `<marquee onstart=alert(1)>x</marquee>`,
  `<div style="background:url(javascript:alert(1))">x</div>`,
  `<div style="width: expression(alert(1))">x</div>`,
  `<meta http-equiv="refresh" content="0;url=javascript:alert(1)">`,
  `<base href="javascript:alert(1)//">`,
  `<link rel="stylesheet" href="javascript:alert(1)">`,
  `<style>@import 'https://evil.example/x.css';</style>`,
  `<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>`,
  `<noscript><p title="</noscript><img src=x onerror=alert(1)>">`,
  `<a href="#" onclick="alert(1)">x</a>`,
  `"><script>alert(1)</script>`,
  `<scr<script>ipt>alert(1)</scr</script>ipt>`,
];

const MARKDOWN_PAYLOADS = [
  `[x](javascript:alert(1))`,
  `[x](JAVASCRIPT:alert(1))`,
  `[x](vbscript:msgbox(1))`,
  `[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)`,
  `![x](javascript:alert(1))`,
  `![x](x" onerror="alert(1))`,
  `<img src=x onerror=alert(1)>`,
  `# title\n\n<script>alert(1)</script>`,
  `<iframe src="https://evil.example"></iframe>`,
  `[a](<javascript:alert(1)>)`,
];

/** What must never survive, checked on the output with invisible characters removed. */
function assertSafe(output: string) {
  const flat = output.replace(/[\u0000-\u0020\u007f-\u009f]/g, "").toLowerCase();
  expect(flat).not.toMatch(/<script/);
  expect(flat).not.toMatch(/<iframe|<object|<embed|<frame|<base|<meta|<link|<form|<style/);
  expect(flat).not.toMatch(/javascript:|vbscript:|data:text\/html/);
  expect(flat).not.toMatch(/expression\(/);
  // No event-handler attribute on any element.
  expect(output.toLowerCase()).not.toMatch(/<[^>]+\son[a-z]+\s*=/);
  expect(output.toLowerCase()).not.toMatch(/srcdoc/);
}

describe("sanitizeHtml", () => {
  it.each(HTML_PAYLOADS)("neutralises %s", (payload) => {
    assertSafe(sanitizeHtml(payload));
  });

  it("keeps ordinary formatting, images and links, and marks links noopener", () => {
    const out = sanitizeHtml(
      `<h2 style="color: red">公告</h2><p>请访问 <a href="https://example.com" target="_blank">官网</a></p><img src="https://example.com/a.png" alt="a"><table><tr><td>1</td></tr></table>`,
    );
    expect(out).toContain(`<h2 style="color: red">公告</h2>`);
    expect(out).toContain(`href="https://example.com"`);
    expect(out).toContain(`target="_blank"`);
    expect(out).toContain(`rel="noopener noreferrer"`);
    expect(out).toContain(`<img src="https://example.com/a.png" alt="a">`);
    expect(out).toContain(`<td>1</td>`);
  });

  it("overrides a rel the author wrote", () => {
    expect(sanitizeHtml(`<a href="https://x.example" rel="opener">x</a>`)).toContain(`rel="noopener noreferrer"`);
  });

  it("returns an empty string for empty input", () => {
    expect(sanitizeHtml("")).toBe("");
    expect(sanitizeHtml(undefined)).toBe("");
  });
});

describe("renderMarkdown", () => {
  it.each(MARKDOWN_PAYLOADS)("neutralises %s", (payload) => {
    assertSafe(renderMarkdown(payload));
  });

  it("renders Markdown to HTML", () => {
    const out = renderMarkdown("# 欢迎\n\n**加粗** 与 [链接](https://example.com)\n\n- 一\n- 二");
    expect(out).toContain("<h1>欢迎</h1>");
    expect(out).toContain("<strong>加粗</strong>");
    expect(out).toContain(`<a href="https://example.com" rel="noopener noreferrer">链接</a>`);
    expect(out).toContain("<li>一</li>");
  });

  it("passes safe inline HTML through", () => {
    expect(renderMarkdown(`<p align="center"><b>hi</b></p>`)).toContain("<b>hi</b>");
  });
});

describe("renderMarkdownBlocks (playground replies)", () => {
  it.each([...MARKDOWN_PAYLOADS, ...HTML_PAYLOADS])("neutralises %s", (payload) => {
    for (const block of renderMarkdownBlocks(`前言\n\n${payload}\n\n结尾`)) if (block.kind === "html") assertSafe(block.html);
  });

  it("splits top-level code blocks out as text with their language, the rest as sanitized HTML", () => {
    const md = "见 [链接](https://example.com)：\n\n```python extra\nprint('<script>x</script>')\n```\n\n    indented\n\n**完**";
    const blocks = renderMarkdownBlocks(md);
    expect(blocks.map((b) => b.kind)).toEqual(["html", "code", "code", "html"]);
    expect(blocks[0]).toEqual({
      kind: "html",
      html: `<p>见 <a href="https://example.com" rel="noopener noreferrer">链接</a>：</p>\n`,
    });
    // Code is text, rendered by React (escaped), never as HTML.
    expect(blocks[1]).toEqual({ kind: "code", lang: "python", text: "print('<script>x</script>')" });
    expect(blocks[2]).toEqual({ kind: "code", lang: "", text: "indented" });
    expect(blocks[3]).toEqual({ kind: "html", html: "<p><strong>完</strong></p>\n" });
  });

  it("keeps reference links defined in another block", () => {
    const blocks = renderMarkdownBlocks("[文档][d]\n\n```\nx\n```\n\n[d]: https://example.com/doc");
    expect(blocks[0]).toMatchObject({ kind: "html" });
    expect((blocks[0] as { html: string }).html).toContain(`href="https://example.com/doc"`);
  });

  it("gives nothing for an empty reply", () => {
    expect(renderMarkdownBlocks("")).toEqual([]);
    expect(renderMarkdownBlocks(undefined)).toEqual([]);
  });
});
