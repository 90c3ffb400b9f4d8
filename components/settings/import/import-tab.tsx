"use client";
// 设置 → 迁移 (root): the new-api / one-api import of docs/import.md for operators who never open a
// shell. 试运行 runs the dry run, 开始导入 the import (after a confirm); both run on the server
// (POST /api/import/new-api) while this tab polls their progress and shows the report the CLI prints.
import { Alert, Badge, Button, Card, Checkbox, Group, Progress, Stack, Text, TextInput, Title } from "@mantine/core";
import { useCallback, useEffect, useState } from "react";
import { confirmAction } from "@/components/data/confirm";
import { api } from "@/lib/client/api";
import { ImportReport, type ImportReportView } from "@/components/settings/import/import-report";

type JobState = {
  status: "idle" | "running" | "done" | "failed";
  apply: boolean;
  progress: { table: string; done: number; total: number; startedAt: number } | null;
  report: ImportReportView | null;
  error: string;
};

export function ImportTab() {
  const [from, setFrom] = useState("");
  const [logs, setLogs] = useState(false);
  const [job, setJob] = useState<JobState | null>(null);
  const [starting, setStarting] = useState(false);

  const poll = useCallback(async () => {
    const res = await api<JobState>("GET", "/api/import/new-api", undefined, { quiet: true });
    if (res.success) setJob(res.data);
  }, []);

  useEffect(() => {
    void poll();
  }, [poll]);
  useEffect(() => {
    if (job?.status !== "running") return;
    const timer = setInterval(() => void poll(), 1000);
    return () => clearInterval(timer);
  }, [job?.status, poll]);

  const start = async (apply: boolean) => {
    if (apply) {
      const ok = await confirmAction({
        title: "开始导入",
        message: "将把源数据库的数据写入 Qiao。已导入的行会跳过，冲突的行不会覆盖。建议先试运行并核对结果。",
        confirmLabel: "开始导入",
      });
      if (!ok) return;
    }
    setStarting(true);
    const res = await api<JobState>("POST", "/api/import/new-api", { from, apply, logs });
    setStarting(false);
    if (res.success) setJob(res.data);
  };

  const running = job?.status === "running";
  return (
    <Stack gap="md">
      <Card withBorder padding="lg">
        <Stack gap="sm">
          <Title order={5}>从 new-api / one-api 迁移</Title>
          <Text size="sm" c="dimmed">
            填写源数据库：new-api 的 SQL_DSN（如 user:pass@tcp(host:3306)/new-api）、postgres:// 或 mysql:// 连接串，或服务器上的 SQLite
            文件路径。源数据库只读，不会被修改。
          </Text>
          <TextInput
            label="源数据库"
            value={from}
            onChange={(e) => setFrom(e.currentTarget.value)}
            placeholder="root:password@tcp(127.0.0.1:3306)/new-api"
          />
          <Checkbox label="包括日志（可能有数千万行，按批导入）" checked={logs} onChange={(e) => setLogs(e.currentTarget.checked)} />
          <Group>
            <Button variant="default" onClick={() => void start(false)} loading={starting} disabled={!from.trim() || running}>
              试运行
            </Button>
            <Button onClick={() => void start(true)} loading={starting} disabled={!from.trim() || running}>
              开始导入
            </Button>
          </Group>
        </Stack>
      </Card>
      {job && job.status !== "idle" && <JobView job={job} />}
    </Stack>
  );
}

function JobView({ job }: { job: JobState }) {
  const p = job.progress;
  const share = p?.total ? Math.min(100, (p.done / p.total) * 100) : 0;
  const elapsed = p ? Math.max(1, Date.now() - p.startedAt) / 1000 : 0;
  const rate = p && elapsed ? p.done / elapsed : 0;
  const eta = p && rate > 0 ? Math.round((p.total - p.done) / rate) : 0;
  return (
    <Card withBorder padding="lg">
      <Stack gap="sm">
        <Group gap="xs">
          <Title order={5}>{job.apply ? "导入" : "试运行"}</Title>
          <Badge color={job.status === "failed" ? "red" : job.status === "done" ? "green" : "blue"}>
            {job.status === "running" ? "进行中" : job.status === "done" ? "已完成" : "失败"}
          </Badge>
        </Group>
        {job.status === "running" && p && (
          <Stack gap={4}>
            <Text size="sm">
              {p.table}：{p.done} / {p.total}，{Math.round(rate)} 行/秒，剩余约 {eta} 秒
            </Text>
            <Progress value={share} animated />
          </Stack>
        )}
        {job.status === "failed" && <Alert color="red">{job.error}</Alert>}
        {job.report && <ImportReport report={job.report} />}
      </Stack>
    </Card>
  );
}
