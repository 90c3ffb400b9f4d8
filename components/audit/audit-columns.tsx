"use client";
// The audit table's columns: when, who (the name at the time, and the account id), what (the
// action's label), on what, the detail (from → to) and the client address.
import { Badge, Stack, Text } from "@mantine/core";
import { AuditDetail } from "@/components/audit/audit-detail";
import { TimeText } from "@/components/data/display";
import type { Column } from "@/components/data/paged-table";
import { AUDIT_TARGET_LABEL, auditActionLabel } from "@/lib/audit/actions";
import type { AuditItem } from "@/lib/audit/read";

/** Destructive or revealing actions stand out; the rest are coloured by what they act on. */
function actionColor(action: string): string {
  if (/\.(delete|delete_batch|delete_disabled|purge|key_reveal|cleanup)$/.test(action)) return "red";
  const domain = action.split(".", 1)[0];
  return (
    ({ user: "blue", option: "grape", channel: "teal", redemption: "orange", topup: "green" } as Record<string, string>)[domain ?? ""] ??
    "gray"
  );
}

const NoWrap = ({ children }: { children: React.ReactNode }) => <span style={{ whiteSpace: "nowrap" }}>{children}</span>;

export function auditColumns(): Column<AuditItem>[] {
  return [
    {
      key: "time",
      title: <NoWrap>时间</NoWrap>,
      render: (row) => (
        <Text size="sm" style={{ whiteSpace: "nowrap" }}>
          <TimeText seconds={row.created_at} />
        </Text>
      ),
    },
    {
      key: "actor",
      title: <NoWrap>操作者</NoWrap>,
      render: (row) => (
        <Stack gap={0}>
          <Text size="sm">{row.actor_name}</Text>
          <Text size="xs" c="dimmed">
            ID {row.actor_id}
          </Text>
        </Stack>
      ),
    },
    {
      key: "action",
      title: <NoWrap>操作</NoWrap>,
      render: (row) => (
        <Badge color={actionColor(row.action)} variant="light" tt="none" miw="max-content" title={row.action}>
          {auditActionLabel(row.action)}
        </Badge>
      ),
    },
    {
      key: "target",
      title: <NoWrap>对象</NoWrap>,
      render: (row) =>
        row.target_type ? (
          <Text size="sm" style={{ whiteSpace: "nowrap" }}>
            {AUDIT_TARGET_LABEL[row.target_type] ?? row.target_type}
            {row.target_id ? ` ${row.target_type === "option" ? row.target_id : `#${row.target_id}`}` : ""}
          </Text>
        ) : (
          ""
        ),
    },
    { key: "detail", title: <NoWrap>详情</NoWrap>, render: (row) => <AuditDetail row={row} /> },
    {
      key: "ip",
      title: <NoWrap>IP</NoWrap>,
      render: (row) => (
        <Text size="sm" c="dimmed" style={{ whiteSpace: "nowrap" }}>
          {row.ip}
        </Text>
      ),
    },
  ];
}
