"use client";
// An audit row's detail as the /audit page shows it: each field on its line, a change as
// "from → to", roles, statuses and quotas in the console's own badges and units, JSON tables as
// compact JSON. Field names come from AUDIT_FIELD_LABEL.
import { Badge, Group, Stack, Text } from "@mantine/core";
import type { ReactNode } from "react";
import { QuotaText } from "@/components/data/display";
import { RedemptionStatus } from "@/components/redemptions/redemption-status";
import { UserRole, UserStatus } from "@/components/users/user-badges";
import { AUDIT_FIELD_LABEL } from "@/lib/audit/actions";
import type { AuditItem } from "@/lib/audit/read";
import { channelStatusTag, channelTypeName } from "@/lib/channels/form";
import { formatTimestamp } from "@/lib/ui/format";
import { useTimeZone } from "@/components/data/display";

const isChange = (value: unknown): value is { from: unknown; to: unknown } =>
  !!value && typeof value === "object" && !Array.isArray(value) && "from" in value && "to" in value && Object.keys(value).length === 2;

/** One value as the row's kind of target shows it. */
function Value({ field, value, targetType }: { field: string; value: unknown; targetType: string }) {
  const zone = useTimeZone();
  if (value === "" || value === null || value === undefined) {
    return (
      <Text span size="sm" c="dimmed">
        （空）
      </Text>
    );
  }
  if (typeof value === "number") {
    if (field === "quota") return <QuotaText quota={value} />;
    if (field === "role") return <UserRole role={value} />;
    if (field === "before") return <>{formatTimestamp(value, zone)}</>;
    if (field === "type" && targetType === "channel") return <>{channelTypeName(value)}</>;
    if (field === "status") return <StatusOf targetType={targetType} status={value} />;
  }
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return (
    <Text
      span
      size="sm"
      style={{ overflowWrap: "anywhere", fontFamily: typeof value === "object" ? "var(--mantine-font-family-monospace)" : undefined }}
    >
      {text}
    </Text>
  );
}

function StatusOf({ targetType, status }: { targetType: string; status: number }) {
  if (targetType === "user") return <UserStatus status={status} deleted={false} />;
  if (targetType === "redemption") return <RedemptionStatus status={status} />;
  const look = channelStatusTag(status);
  return (
    <Badge color={look.color} variant="light">
      {look.label}
    </Badge>
  );
}

export function AuditDetail({ row }: { row: AuditItem }) {
  const entries = Object.entries(row.detail);
  if (entries.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        —
      </Text>
    );
  }
  return (
    <Stack gap={2}>
      {entries.map(([field, value]) => {
        let shown: ReactNode;
        if (isChange(value)) {
          shown = (
            <>
              <Value field={field} value={value.from} targetType={row.target_type} />
              <Text span size="sm" c="dimmed" aria-label="改为">
                →
              </Text>
              <Value field={field} value={value.to} targetType={row.target_type} />
            </>
          );
        } else {
          shown = <Value field={field} value={value} targetType={row.target_type} />;
        }
        return (
          <Group key={field} gap={6} wrap="wrap" align="center">
            <Text span size="sm" c="dimmed">
              {AUDIT_FIELD_LABEL[field] ?? field}：
            </Text>
            {shown}
          </Group>
        );
      })}
    </Stack>
  );
}
