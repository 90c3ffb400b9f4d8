"use client";
// The background runs of the channel page (test all, update all balances): started through /api,
// then GET /api/channel/jobs is polled while one runs; the page stays usable meanwhile. The progress
// panel shows running runs only: when one ends it closes, its result is told in a toast and the
// list is refreshed.
import { Alert, Group, Progress, Stack, Text } from "@mantine/core";
import { useCallback, useEffect, useRef, useState } from "react";
import { api } from "@/lib/client/api";
import { showInfo, showSuccess, showWarning } from "@/lib/client/notify";
import type { ChannelJob, ChannelJobKind } from "@/lib/channels/jobs";

type Jobs = Record<ChannelJobKind, ChannelJob | null>;

const POLL_MS = 1000;

export const JOB_LABEL: Record<ChannelJobKind, string> = { test: "测试所有通道", balance: "更新所有已启用通道余额" };

export function useChannelJobs(onFinished: () => void) {
  const [jobs, setJobs] = useState<Jobs>({ test: null, balance: null });
  /** Runs this page saw running: their end is reported and refreshes the list. */
  const watched = useRef(new Set<ChannelJobKind>());
  const finished = useRef(onFinished);
  finished.current = onFinished;

  const poll = useCallback(async () => {
    const res = await api<Jobs>("GET", "/api/channel/jobs", undefined, { quiet: true });
    if (!res.success) return;
    setJobs({ test: res.data.test?.running ? res.data.test : null, balance: res.data.balance?.running ? res.data.balance : null });
    let ended = false;
    for (const kind of ["test", "balance"] as const) {
      const job = res.data[kind];
      if (job?.running) watched.current.add(kind);
      else if (watched.current.delete(kind)) {
        ended = true;
        if (job) (job.failed ? showWarning : showSuccess)(jobResult(job));
      }
    }
    if (ended) finished.current();
  }, []);

  const running = !!(jobs.test?.running || jobs.balance?.running);
  useEffect(() => {
    poll();
  }, [poll]);
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(poll, POLL_MS);
    return () => clearInterval(timer);
  }, [running, poll]);

  const start = useCallback(
    async (kind: ChannelJobKind) => {
      const res = await api<ChannelJob>("GET", kind === "test" ? "/api/channel/test" : "/api/channel/update_balance");
      if (!res.success) return;
      showInfo(res.message);
      watched.current.add(kind);
      if (res.data.running) setJobs((j) => ({ ...j, [kind]: res.data }));
      else poll();
    },
    [poll],
  );

  return { jobs, start, running };
}

const jobSummary = (job: ChannelJob) =>
  `成功 ${job.succeeded}，失败 ${job.failed}${job.disabled ? `，已禁用 ${job.disabled}` : ""}${job.enabled ? `，已启用 ${job.enabled}` : ""}`;

/** The toast of a finished run: its counts and the first failures. */
function jobResult(job: ChannelJob): string {
  const failures = job.failures
    .slice(0, 5)
    .map((f) => `#${f.channel_id}：${f.message}`)
    .join("；");
  const more = job.failures.length > 5 ? ` 等 ${job.failures.length} 个` : "";
  return `${JOB_LABEL[job.kind]}已完成 ${job.done}/${job.total}：${jobSummary(job)}${failures ? `。${failures}${more}` : ""}`;
}

function JobLine({ job }: { job: ChannelJob }) {
  const value = job.total ? Math.round((job.done / job.total) * 100) : 0;
  return (
    <Stack gap={4} aria-label={JOB_LABEL[job.kind]} role="status">
      <Group justify="space-between" gap="xs" wrap="wrap">
        <Text size="sm" fw={500}>
          {JOB_LABEL[job.kind]}：进行中 {job.done}/{job.total}
        </Text>
        <Text size="xs" c="dimmed">
          {jobSummary(job)}
        </Text>
      </Group>
      <Progress value={value} animated color={job.failed ? "orange" : "teal"} aria-label={`${JOB_LABEL[job.kind]}进度`} />
    </Stack>
  );
}

export function ChannelJobsPanel({ jobs }: { jobs: Jobs }) {
  const shown = [jobs.test, jobs.balance].filter((j): j is ChannelJob => !!j);
  if (shown.length === 0) return null;
  return (
    <Alert variant="light" color="blue" p="sm">
      <Stack gap="sm">
        {shown.map((job) => (
          <JobLine key={job.kind} job={job} />
        ))}
      </Stack>
    </Alert>
  );
}
