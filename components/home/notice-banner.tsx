"use client";
// The admin's notice (option Notice, Markdown/HTML) above the home page. Each visitor sees a
// notice once: it is remembered per user in local storage when shown, and shows again only
// after the admin changes it (as the original console's `notice` key).
import { Alert } from "@mantine/core";
import { useEffect, useState } from "react";
import { AdminHtml } from "@/components/content/admin-html";
import { useOptionText } from "@/components/content/use-option-text";
import { useStoredUser } from "@/lib/client/hooks";
import { markNoticeSeen, noticeSeen } from "@/lib/client/storage";

export function NoticeBanner() {
  const notice = useOptionText("/api/notice", { quiet: true });
  const user = useStoredUser();
  const viewer = user ? String(user.id) : "guest";
  const [shown, setShown] = useState<string | null>(null);
  const [closed, setClosed] = useState(false);

  useEffect(() => {
    if (notice.state !== "ready" || !notice.text.trim() || shown !== null) return;
    if (noticeSeen(viewer, notice.text)) return;
    markNoticeSeen(viewer, notice.text);
    setShown(notice.text);
  }, [notice, viewer, shown]);

  if (closed || shown === null) return null;
  return (
    <Alert color="blue" title="公告" withCloseButton closeButtonLabel="关闭公告" onClose={() => setClosed(true)} mb="md">
      <AdminHtml source={shown} />
    </Alert>
  );
}
