// Redemption status of spec §4: 1 unused, 2 disabled, 3 used.
import { Badge } from "@mantine/core";
import { REDEMPTION_STATUS } from "@/lib/redemptions/schemas";

const LOOK: Record<number, { label: string; color: string }> = {
  [REDEMPTION_STATUS.unused]: { label: "未使用", color: "green" },
  [REDEMPTION_STATUS.disabled]: { label: "已禁用", color: "red" },
  [REDEMPTION_STATUS.used]: { label: "已使用", color: "gray" },
};

export function RedemptionStatus({ status }: { status: number }) {
  const look = LOOK[status] ?? { label: "未知状态", color: "gray" };
  return (
    <Badge color={look.color} variant="light">
      {look.label}
    </Badge>
  );
}
