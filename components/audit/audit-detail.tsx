"use client";
// An audit row's detail as the /audit page shows it: each field on its line, a change as
// "from → to", roles, statuses and quotas in the console's own badges and units, JSON tables as
// compact JSON. Field names come from AUDIT_FIELD_LABEL.
import { Badge, Group, Stack, Text } from "@mantine/core";
import type { ReactNode } from "react";
import { QuotaText, useTimeZone } from "@/components/data/display";
import { RedemptionStatus } from "@/components/redemptions/redemption-status";
import { UserRole, UserStatus } from "@/components/users/user-badges";
import { AUDIT_FIELD_LABEL } from "@/lib/audit/actions";
import type { AuditItem } from "@/lib/audit/read";
import { channelStatusTag, channelTypeName } from "@/lib/channels/form";
import { formatTimestamp } from "@/lib/ui/format";

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
    if (field === "role") return <UserRole role={value} />;
    if (field === "status") return <StatusOf targetType={targetType} status={value} />;
    if (field === "quota")
      return (
        <Plain>
          <QuotaText quota={value} />
        </Plain>
      );
    if (field === "before") return <Plain>{formatTimestamp(value, zone)}</Plain>;
    if (field === "type" && targetType === "channel") return <Plain>{channelTypeName(value)}</Plain>;
  }
  if (typeof value === "object") return <Plain mono>{JSON.stringify(value)}</Plain>;
  return <Plain>{String(value)}</Plain>;
}

/** A value as text, at the table's size (a card on a phone would show it larger), wrapped anywhere. */
function Plain({ children, mono = false }: { children: ReactNode; mono?: boolean }) {
  return (
    <Text span size="sm" ff={mono ? "monospace" : undefined} style={{ overflowWrap: "anywhere" }}>
      {children}
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
