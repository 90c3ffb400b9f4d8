"use client";
// The admin's notice (option Notice, Markdown) above the home page, until the visitor closes it.
import { Alert } from "@mantine/core";
import { useState } from "react";
import { useOptionText } from "@/components/content/use-option-text";
import { renderMarkdown } from "@/lib/sanitize";

export function NoticeBanner() {
  const notice = useOptionText("/api/notice", { quiet: true });
  const [closed, setClosed] = useState(false);
  if (closed || notice.state !== "ready" || !notice.text.trim()) return null;
  return (
    <Alert color="blue" title="公告" withCloseButton closeButtonLabel="关闭公告" onClose={() => setClosed(true)} mb="md">
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: renderMarkdown sanitizes */}
      <div className="admin-content" dangerouslySetInnerHTML={{ __html: renderMarkdown(notice.text) }} />
    </Alert>
  );
}
