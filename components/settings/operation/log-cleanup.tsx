"use client";
// Log cleanup (spec §5: a time is required; §9: one month ago by default): deletes every log row
// created before the chosen time through DELETE /api/log/?target_timestamp and says how many went.
import { Button, Group } from "@mantine/core";
import { useState } from "react";
import { confirmAction } from "@/components/data/confirm";
import { DateTimeField } from "@/components/data/date-time-field";
import { api } from "@/lib/client/api";
import { showSuccess } from "@/lib/client/notify";
import { cleanupTimestamp, defaultCleanupTime, OPERATION_MSG } from "@/lib/options/operation";

export function LogCleanup() {
  const [time, setTime] = useState(() => defaultCleanupTime());
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

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
    setBusy(true);
    const res = await api<number>("DELETE", `/api/log/?target_timestamp=${ts}`);
    setBusy(false);
    if (res.success) showSuccess(OPERATION_MSG.cleaned(res.data));
  };

  return (
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
  );
}
