"use client";
// Footer: the admin's custom footer HTML (sanitized) or `v{version}` with the project link. Like
// the original, it re-reads local storage `footer_html` 5 times at 200 ms (spec §9), because the
// status request that writes it may finish after the first render.
import { Anchor, Box } from "@mantine/core";
import { useEffect, useState } from "react";
import { useSiteStatus } from "@/lib/client/hooks";
import { readFooterHtml } from "@/lib/client/storage";
import { sanitizeHtml } from "@/lib/sanitize";
import { PROJECT_REPOSITORY } from "@/lib/ui/brand";

const RECHECKS = 5;
const RECHECK_INTERVAL_MS = 200;

function useFooterHtml(): string {
  const [html, setHtml] = useState("");
  useEffect(() => {
    setHtml(readFooterHtml());
    let remaining = RECHECKS;
    const timer = window.setInterval(() => {
      setHtml(readFooterHtml());
      if (--remaining <= 0) window.clearInterval(timer);
    }, RECHECK_INTERVAL_MS);
    return () => window.clearInterval(timer);
  }, []);
  return html;
}

export function SiteFooter() {
  const status = useSiteStatus();
  const footerHtml = useFooterHtml();
  return (
    <Box component="footer" pt="xl" pb="xs" data-testid="site-footer">
      {footerHtml ? (
        // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitized by sanitizeHtml
        <div className="custom-footer" dangerouslySetInnerHTML={{ __html: sanitizeHtml(footerHtml) }} />
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
