"use client";
// Footer: the admin's custom footer (Markdown/HTML, sanitized) or `v{version}` with the project link. Like
// the original, it re-reads local storage `footer_html` 5 times at 200 ms (spec §9), because the
// status request that writes it may finish after the first render.
import { Anchor, Box } from "@mantine/core";
import { AdminHtml } from "@/components/content/admin-html";
import { useEffect, useState } from "react";
import { useSiteStatus } from "@/lib/client/hooks";
import { readFooterHtml, subscribeStorage } from "@/lib/client/storage";
import { PROJECT_REPOSITORY } from "@/lib/ui/brand";

const RECHECKS = 5;
const RECHECK_INTERVAL_MS = 200;

function useFooterHtml(): string {
  const [html, setHtml] = useState("");
  useEffect(() => {
    const read = () => setHtml(readFooterHtml());
    read();
    // A status refresh later on (after root saves the footer) shows at once too.
    const unsubscribe = subscribeStorage(read);
    let remaining = RECHECKS;
    const timer = window.setInterval(() => {
      read();
      if (--remaining <= 0) window.clearInterval(timer);
    }, RECHECK_INTERVAL_MS);
    return () => {
      window.clearInterval(timer);
      unsubscribe();
    };
  }, []);
  return html;
}

export function SiteFooter() {
  const status = useSiteStatus();
  const footerHtml = useFooterHtml();
  return (
    <Box component="footer" pt="xl" pb="xs" data-testid="site-footer">
      {footerHtml ? (
        <AdminHtml source={footerHtml} className="custom-footer" />
      ) : (
        <div className="custom-footer">
          <Anchor href={PROJECT_REPOSITORY} target="_blank" rel="noopener noreferrer" size="sm">
            Qiao
          </Anchor>{" "}
          {status?.version ? `v${status.version.replace(/^v/i, "")}` : ""} · 开源的 AI 模型接口网关
        </div>
      )}
    </Box>
  );
}
