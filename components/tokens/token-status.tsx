// Token status of spec §4: 1 enabled (with 'limited models' when model limits are on), 2 disabled,
// 3 expired, 4 exhausted.
import { Badge, Group } from "@mantine/core";
import { TOKEN_STATUS } from "@/lib/tokens/status";

const LOOK: Record<number, { label: string; color: string }> = {
  [TOKEN_STATUS.enabled]: { label: "已启用", color: "green" },
  [TOKEN_STATUS.disabled]: { label: "已禁用", color: "red" },
  [TOKEN_STATUS.expired]: { label: "已过期", color: "yellow" },
  [TOKEN_STATUS.exhausted]: { label: "已耗尽", color: "gray" },
};

export function TokenStatus({ status, limited }: { status: number; limited: boolean }) {
  const look = LOOK[status] ?? { label: "未知状态", color: "gray" };
  return (
    <Group gap={4} wrap="nowrap">
      <Badge color={look.color} variant="light">
        {look.label}
      </Badge>
      {status === TOKEN_STATUS.enabled && limited && (
        <Badge color="blue" variant="outline">
          限制模型
        </Badge>
      )}
    </Group>
  );
}
