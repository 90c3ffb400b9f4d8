"use client";
// The report of a dry run or an import (lib/import-new-api/report.ts's JSON), as the CLI prints it:
// counts per table, the quota sums, the rows not imported and why, the columns and options Qiao has
// no place for.
import { Badge, Stack, Table, Text, Title } from "@mantine/core";

type TableRow = { table: string; rows: number; already: number; imported: number; conflicts: number; unmappable: number };
type Problem = { table: string; id: number; reason: string };
type Sum = { source: string; skipped: string; expected: string; target: string | null; equal: boolean | null };
export type ImportReportView = {
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
const SUM_LABELS: Record<string, string> = {
  users_quota: "用户剩余额度",
  users_used_quota: "用户已用额度",
  tokens_remain_quota: "令牌剩余额度（不含无限额度）",
  redemptions_unused_quota: "未使用兑换码面值",
};

export function ImportReport({ report: r }: { report: ImportReportView }) {
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
