"use client";
// Admin-written page content: an http(s) address is embedded in a sandboxed frame, anything else
// is rendered as Markdown/HTML through the one sanitizer (AdminHtml).
import { AdminHtml } from "@/components/content/admin-html";
import { useHydrated } from "@/lib/client/hooks";
import { contentSandbox, isEmbeddableUrl } from "@/lib/ui/content";

export function AdminContent({ content, title, height }: { content: string; title: string; height?: string }) {
  const hydrated = useHydrated();
  if (!isEmbeddableUrl(content)) return <AdminHtml source={content} />;
  if (!hydrated) return null;
  const src = content.trim();
  return (
    <iframe
      src={src}
      title={title}
      sandbox={contentSandbox(src, window.location.origin)}
      referrerPolicy="no-referrer"
      style={{ width: "100%", height: height ?? "calc(100dvh - 56px - 120px)", minHeight: 480, border: "none", display: "block" }}
    />
  );
}
