"use client";
// 设置 → 迁移 (root): the new-api / one-api import of docs/import.md for operators who never open a
// shell. 试运行 runs the dry run, 开始导入 the import (after a confirm); both run on the server
// (POST /api/import/new-api) while this tab polls their progress and shows the report the CLI prints.
import { Alert, Badge, Button, Card, Checkbox, Group, Progress, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useCallback, useEffect, useState } from "react";
import { confirmAction } from "@/components/data/confirm";
import { api } from "@/lib/client/api";

type TableRow = { table: string; rows: number; already: number; imported: number; conflicts: number; unmappable: number };
type Problem = { table: string; id: number; reason: string };
type Sum = { source: string; skipped: string; expected: string; target: string | null; equal: boolean | null };
type Report = {
  source: { kind: string; flavor: string };
  applied: boolean;
  interrupted: boolean;
  tables: TableRow[];
  problems: Problem[];
  notes: Problem[];
  droppedColumns: Record<string, number>;
  options: {
    imported: string[];
    same: string[];
    conflicts: { key: string; reason: string }[];
    invalid: { key: string; reason: string }[];
    unsupported: string[];
  };
  sums: Record<string, Sum>;
};
type JobState = {
  status: "idle" | "running" | "done" | "failed";
  apply: boolean;
  progress: { table: string; done: number; total: number; startedAt: number } | null;
  report: Report | null;
  error: string;
};

const SUM_LABELS: Record<string, string> = {
  users_quota: "用户剩余额度",
  users_used_quota: "用户已用额度",
  tokens_remain_quota: "令牌剩余额度（不含无限额度）",
  redemptions_unused_quota: "未使用兑换码面值",
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
        {job.report && <ReportView report={job.report} />}
      </Stack>
    </Card>
  );
}

function ReportView({ report: r }: { report: Report }) {
  const dropped = Object.entries(r.droppedColumns);
  return (
    <Stack gap="sm">
      <Text size="sm">
        源：{r.source.kind}，{r.source.flavor}。
        {r.applied ? (r.interrupted ? "导入中断，再次导入会从中断处继续。" : "已导入。") : "试运行：没有写入任何数据。"}
      </Text>
      <Table withTableBorder striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>表</Table.Th>
            <Table.Th>源行数</Table.Th>
            <Table.Th>已导入过</Table.Th>
            <Table.Th>{r.applied ? "本次导入" : "将导入"}</Table.Th>
            <Table.Th>冲突</Table.Th>
            <Table.Th>无法导入</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {r.tables.map((t) => (
            <Table.Tr key={t.table}>
              <Table.Td>{t.table}</Table.Td>
              <Table.Td>{t.rows}</Table.Td>
              <Table.Td>{t.already}</Table.Td>
              <Table.Td>{t.imported}</Table.Td>
              <Table.Td>{t.conflicts}</Table.Td>
              <Table.Td>{t.unmappable}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Title order={6}>额度核对</Title>
      <Table withTableBorder>
        <Table.Tbody>
          {Object.entries(r.sums).map(([name, s]) => (
            <Table.Tr key={name}>
              <Table.Td>{SUM_LABELS[name] ?? name}</Table.Td>
              <Table.Td>
                源 {s.source} − 跳过 {s.skipped} = {s.expected}
                {s.target !== null && `，Qiao ${s.target}`}
              </Table.Td>
              <Table.Td>
                {s.equal === null ? "—" : s.equal ? <Badge color="green">相等</Badge> : <Badge color="red">不相等</Badge>}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {r.problems.length > 0 && (
        <>
          <Title order={6}>冲突与无法导入的行（不会写入）</Title>
          {r.problems.map((p) => (
            <Text size="sm" key={`${p.table}-${p.id}-${p.reason}`}>
              {p.table} #{p.id}：{p.reason}
            </Text>
          ))}
        </>
      )}
      {r.notes.length > 0 && (
        <>
          <Title order={6}>导入时有改动的行</Title>
          {r.notes.map((p) => (
            <Text size="sm" key={`${p.table}-${p.id}-${p.reason}`}>
              {p.table}
              {p.id ? ` #${p.id}` : ""}：{p.reason}
            </Text>
          ))}
        </>
      )}
      {dropped.length > 0 && (
        <>
          <Title order={6}>Qiao 没有对应字段、未导入的列</Title>
          <Text size="sm">{dropped.map(([col, n]) => `${col}（${n} 行）`).join("，")}</Text>
        </>
      )}
      <Title order={6}>设置</Title>
      <Text size="sm">
        导入 {r.options.imported.length} 项，相同 {r.options.same.length} 项，冲突 {r.options.conflicts.length} 项，无效{" "}
        {r.options.invalid.length} 项
      </Text>
      {[...r.options.conflicts, ...r.options.invalid].map((o) => (
        <Text size="sm" key={o.key}>
          {o.key}：{o.reason}
        </Text>
      ))}
      {r.options.unsupported.length > 0 && <Text size="sm">Qiao 没有的设置项（未导入）：{r.options.unsupported.join(", ")}</Text>}
    </Stack>
  );
}
