"use client";
// Admin-written page content: an http(s) address is embedded in a sandboxed frame, anything else
// is rendered as Markdown/HTML through the one sanitizer.
import { useMemo } from "react";
import { renderMarkdown } from "@/lib/sanitize";
import { CONTENT_IFRAME_SANDBOX, isEmbeddableUrl } from "@/lib/ui/content";

export function AdminContent({ content, title }: { content: string; title: string }) {
  const embedded = isEmbeddableUrl(content);
  const html = useMemo(() => (embedded ? "" : renderMarkdown(content)), [content, embedded]);
  if (embedded) {
    return (
      <iframe
        src={content.trim()}
        title={title}
        sandbox={CONTENT_IFRAME_SANDBOX}
        referrerPolicy="no-referrer"
        style={{ width: "100%", height: "calc(100dvh - 56px - 120px)", minHeight: 480, border: "none", display: "block" }}
      />
    );
  }
  // biome-ignore lint/security/noDangerouslySetInnerHtml: html comes out of lib/sanitize
  return <div className="admin-content" dangerouslySetInnerHTML={{ __html: html }} />;
}
