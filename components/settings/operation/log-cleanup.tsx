"use client";
// Log cleanup (spec §5: a time is required; §9: one month ago by default): deletes every log row
// created before the chosen time through DELETE /api/log/?target_timestamp and says how many went.
// The rows go in batches; while they do, a bar shows GET /api/log/cleanup's count.
import { Button, Group, Progress, Stack, Text } from "@mantine/core";
import { useEffect, useState } from "react";
import { confirmAction } from "@/components/data/confirm";
import { DateTimeField } from "@/components/data/date-time-field";
import { api } from "@/lib/client/api";
import { showSuccess } from "@/lib/client/notify";
import type { CleanupProgress } from "@/lib/logs/query";
import { cleanupTimestamp, defaultCleanupTime, OPERATION_MSG } from "@/lib/options/operation";

/** How often the bar asks for the count while the cleanup runs. */
const PROGRESS_EVERY_MS = 500;

export function LogCleanup() {
  const [time, setTime] = useState(() => defaultCleanupTime());
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<CleanupProgress | null>(null);

  useEffect(() => {
    if (!busy) return;
    let stop = false;
    const timer = setInterval(async () => {
      const res = await api<CleanupProgress>("GET", "/api/log/cleanup", undefined, { quiet: true });
      if (!stop && res.success && res.data.running) setProgress(res.data);
    }, PROGRESS_EVERY_MS);
    return () => {
      stop = true;
      clearInterval(timer);
    };
  }, [busy]);

  const clean = async () => {
    const ts = cleanupTimestamp(time);
    if (ts === null) return setError(OPERATION_MSG.cleanupTimeRequired);
    const ok = await confirmAction({
      title: "清除历史日志",
      message: `将删除 ${new Date(ts * 1000).toLocaleString("zh-CN")} 之前的全部日志，无法恢复。`,
      confirmLabel: "清除",
      danger: true,
    });
    if (!ok) return;
    setProgress(null);
    setBusy(true);
    const res = await api<number>("DELETE", `/api/log/?target_timestamp=${ts}`);
    setBusy(false);
    setProgress(null);
    if (res.success) showSuccess(OPERATION_MSG.cleaned(res.data));
  };

  return (
    <Stack gap="xs">
      <Group align="flex-end" gap="sm">
        <DateTimeField
          label="日志清理时间"
          description="删除此时间之前的日志"
          value={time}
          error={error}
          onChange={(v) => {
            setTime(v);
            setError(null);
          }}
          w={{ base: "100%", xs: 260 }}
        />
        <Button color="red" variant="light" onClick={clean} loading={busy}>
          清除历史日志
        </Button>
      </Group>
      {busy && progress && progress.total > 0 && (
        <Stack gap={4} maw={420} aria-live="polite">
          <Progress value={(progress.deleted / progress.total) * 100} color="red" aria-label="日志清理进度" />
          <Text size="sm" c="dimmed">
            {OPERATION_MSG.cleaning(progress.deleted, progress.total)}
          </Text>
        </Stack>
      )}
    </Stack>
  );
}
