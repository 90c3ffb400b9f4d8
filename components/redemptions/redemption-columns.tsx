"use client";
// The redemption table's columns (id, name, status, quota, times, who redeemed) and its row buttons.
import { Button, Group, Text } from "@mantine/core";
import { CopyButton } from "@/components/data/copy";
import { QuotaText, TimeText } from "@/components/data/display";
import type { Column } from "@/components/data/paged-table";
import { RowIcon } from "@/components/data/row-icon";
import { RedemptionStatus } from "@/components/redemptions/redemption-status";
import { fullCode, type RedemptionActions } from "@/components/redemptions/use-redemption-actions";
import { REDEMPTION_STATUS } from "@/lib/redemptions/schemas";
import type { RedemptionView } from "@/lib/redemptions/view";

export function redemptionColumns(actions: RedemptionActions, onEdit: (id: number) => void): Column<RedemptionView>[] {
  const { status, remove } = actions;
  return [
    { key: "id", title: "ID", render: (r) => r.id, width: 70 },
    {
      key: "name",
      title: "名称",
      render: (r) => (
        <Text size="sm" fw={500}>
          {r.name}
        </Text>
      ),
    },
    { key: "status", title: "状态", render: (r) => <RedemptionStatus status={r.status} /> },
    { key: "quota", title: "额度", render: (r) => <QuotaText quota={r.quota} /> },
    { key: "created", title: "创建时间", render: (r) => <TimeText seconds={r.created_time} /> },
    { key: "redeemed", title: "兑换时间", render: (r) => <TimeText seconds={r.redeemed_time} empty="尚未兑换" /> },
    { key: "user", title: "兑换人 ID", render: (r) => (r.used_user_id ? r.used_user_id : "无") },
    {
      key: "actions",
      title: "操作",
      render: (r) => {
        const used = r.status === REDEMPTION_STATUS.used;
        return (
          <Group gap={4} wrap="nowrap">
            <RowIcon label="查看" icon="eye" color="gray" onClick={() => actions.view(r)} />
            <CopyButton value={() => fullCode(r.id)} label="复制" />
            {/* Spec §4: a used code is never enabled again. The spinner stays on while deleting too. */}
            <Button
              size="compact-sm"
              variant="light"
              color={r.status === REDEMPTION_STATUS.unused ? "orange" : "green"}
              loading={status.busy(r) || remove.busy(r)}
              disabled={used}
              onClick={() => status.run(r)}
            >
              {r.status === REDEMPTION_STATUS.unused ? "禁用" : "启用"}
            </Button>
            {/* Spec §4: edit only while unused. */}
            <RowIcon
              label="编辑"
              icon="edit"
              tip={r.status === REDEMPTION_STATUS.unused ? undefined : "只能编辑未使用的兑换码"}
              disabled={r.status !== REDEMPTION_STATUS.unused}
              onClick={() => onEdit(r.id)}
            />
            <RowIcon label="删除" icon="trash" color="red" onClick={() => remove.run(r)} />
          </Group>
        );
      },
    },
  ];
}
