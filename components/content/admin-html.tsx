"use client";
// The one way admin-written text (notice, home page, about, footer, and their previews in the
// settings) becomes HTML on a page: Markdown or HTML, through lib/sanitize's one sanitizer.
import { useMemo } from "react";
import { renderMarkdown } from "@/lib/sanitize";

export function AdminHtml({ source, className = "admin-content" }: { source: string; className?: string }) {
  const html = useMemo(() => renderMarkdown(source), [source]);
  // biome-ignore lint/security/noDangerouslySetInnerHtml: renderMarkdown sanitizes
  return <div className={className} dangerouslySetInnerHTML={{ __html: html }} />;
}
