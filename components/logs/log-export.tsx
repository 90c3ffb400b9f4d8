"use client";
// 导出 CSV: downloads the rows of the filter the page shows (its URL's, not the form being edited)
// from GET /api/log/export (admin) or /api/log/self/export, times in the viewer's zone.
import { Button } from "@mantine/core";
import { useState } from "react";
import { downloadFile } from "@/lib/client/download";
import type { LogFilters } from "@/lib/logs/range";

export function exportLogsPath(admin: boolean, filters: LogFilters, timeZone: string): string {
  const q = new URLSearchParams();
  if (filters.type) q.set("type", String(filters.type));
  if (filters.token_name) q.set("token_name", filters.token_name);
  if (filters.model_name) q.set("model_name", filters.model_name);
  q.set("start_timestamp", String(filters.start_timestamp));
  q.set("end_timestamp", String(filters.end_timestamp));
  if (admin && filters.username) q.set("username", filters.username);
  if (admin && filters.channel) q.set("channel", String(filters.channel));
  q.set("tz", timeZone);
  return `${admin ? "/api/log/export" : "/api/log/self/export"}?${q}`;
}

export function LogExportButton({ admin, filters }: { admin: boolean; filters: LogFilters }) {
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    try {
      await downloadFile(exportLogsPath(admin, filters, Intl.DateTimeFormat().resolvedOptions().timeZone), "logs.csv");
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button variant="light" onClick={download} loading={busy}>
      导出 CSV
    </Button>
  );
}
