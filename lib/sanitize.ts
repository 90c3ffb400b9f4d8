// The one gate for admin-written HTML and Markdown (notice, home page, about, footer) and model
// replies in the playground: everything rendered with dangerouslySetInnerHTML goes through
// sanitizeHtml, renderMarkdown or renderMarkdownBlocks first.
import DOMPurify from "isomorphic-dompurify";
import { marked, type Token, type Tokens } from "marked";

/** Tags that embed other documents, submit data, or change how the page itself behaves. */
const FORBID_TAGS = [
  "script",
  "iframe",
  "frame",
  "frameset",
  "object",
  "embed",
  "applet",
  "base",
  "meta",
  "link",
  "style",
  "form",
  "input",
  "button",
  "textarea",
  "select",
  "option",
  "noscript",
  "template",
];
const FORBID_ATTR = ["srcdoc", "formaction", "action", "ping"];
const URL_ATTRS = ["href", "src", "xlink:href", "action", "formaction", "poster", "background", "cite", "data"];

// Browsers ignore ASCII whitespace and control characters inside a URL scheme ("java\tscript:").
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this strips
const stripInvisible = (value: string) => value.replace(/[\u0000-\u0020\u007f-\u009f\u00ad\u200b-\u200f\u2028\u2029\ufeff]/g, "");
const DANGEROUS_URL = /^(?:javascript|vbscript|livescript|data:(?!image\/(?:png|gif|jpe?g|webp|avif);))/i;
const DANGEROUS_CSS = /javascript:|vbscript:|expression\s*\(|@import|behavior\s*:|-moz-binding/i;

let hooked = false;
function purifier() {
  if (hooked) return DOMPurify;
  hooked = true;
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    const el = node as Element;
    if (typeof el.getAttribute !== "function") return;
    for (const name of URL_ATTRS) {
      const value = el.getAttribute(name);
      if (value !== null && DANGEROUS_URL.test(stripInvisible(value))) el.removeAttribute(name);
    }
    const style = el.getAttribute("style");
    if (style !== null && DANGEROUS_CSS.test(stripInvisible(style))) el.removeAttribute("style");
    if (el.tagName === "A" || el.tagName === "AREA") {
      el.setAttribute("rel", "noopener noreferrer");
      const target = el.getAttribute("target");
      if (target !== null && target !== "_blank" && target !== "_self") el.removeAttribute("target");
    }
  });
  return DOMPurify;
}

export function sanitizeHtml(html: string | null | undefined): string {
  if (!html) return "";
  return purifier().sanitize(html, {
    FORBID_TAGS,
    FORBID_ATTR,
    ADD_ATTR: ["target"],
    ALLOW_UNKNOWN_PROTOCOLS: false,
  });
}

export function renderMarkdown(md: string | null | undefined): string {
  if (!md) return "";
  const html = marked.parse(md, { async: false, gfm: true, breaks: false });
  return sanitizeHtml(html);
}

export type MarkdownBlock = { kind: "html"; html: string } | { kind: "code"; lang: string; text: string };

/**
 * Markdown split at its top-level fenced and indented code blocks, so a page can give each code
 * block its own frame (a copy button); everything else is rendered and sanitized like
 * renderMarkdown. Model replies in the playground go through here.
 */
export function renderMarkdownBlocks(md: string | null | undefined): MarkdownBlock[] {
  if (!md) return [];
  const tokens = marked.lexer(md, { gfm: true, breaks: false });
  const blocks: MarkdownBlock[] = [];
  let run: Token[] = [];
  const flush = () => {
    if (run.length === 0) return;
    const html = sanitizeHtml(marked.parser(Object.assign(run, { links: tokens.links }), { async: false, gfm: true, breaks: false }));
    if (html) blocks.push({ kind: "html", html });
    run = [];
  };
  for (const token of tokens) {
    if (token.type === "code") {
      flush();
      const code = token as Tokens.Code;
      blocks.push({ kind: "code", lang: (code.lang ?? "").trim().split(/\s+/)[0] ?? "", text: code.text });
    } else run.push(token);
  }
  flush();
  return blocks;
}
