"use client";
// The columns of a top-up order table: the wallet's 充值记录 (the user's own) and, with the user,
// the completion and the 标记已支付 button, the admin's /orders page.
import { Badge, Button, Group, Stack, Text, Tooltip } from "@mantine/core";
import type { ReactNode } from "react";
import { CopyButton } from "@/components/data/copy";
import { QuotaText, TimeText } from "@/components/data/display";
import type { Column } from "@/components/data/paged-table";
import type { RowAction } from "@/components/data/use-row-action";
import type { OrderStatus, PaymentMethod } from "@/lib/payments/orders";
import {
  type AdminOrderView,
  isPayable,
  markPaidRefusal,
  ORDER_MSG,
  ORDER_STATUS_LOOK,
  type OrderView,
  PAYMENT_METHOD_LABEL,
} from "@/lib/payments/order-view";

const NoWrap = ({ children }: { children: ReactNode }) => <span style={{ whiteSpace: "nowrap" }}>{children}</span>;

export function OrderStatusBadge({ status }: { status: string }) {
  const look = ORDER_STATUS_LOOK[status as OrderStatus] ?? { label: status, color: "gray" };
  return (
    <Badge color={look.color} variant="light" miw="max-content">
      {look.label}
    </Badge>
  );
}

export const methodLabel = (method: string) => PAYMENT_METHOD_LABEL[method as PaymentMethod] ?? method;

/** The money paid and its currency: "73.00 CNY". */
export const paidText = (order: OrderView) => `${order.money} ${order.currency}`;

/** The columns both tables share, in their order. */
function sharedColumns<T extends OrderView>(): Record<"time" | "trade_no" | "quota" | "money" | "method" | "status", Column<T>> {
  return {
    time: {
      key: "time",
      title: <NoWrap>创建时间</NoWrap>,
      render: (r) => (
        <Text size="sm" style={{ whiteSpace: "nowrap" }}>
          <TimeText seconds={r.create_time} />
        </Text>
      ),
    },
    trade_no: {
      key: "trade_no",
      title: <NoWrap>订单号</NoWrap>,
      render: (r) => (
        <Group gap={2} wrap="nowrap">
          <Text size="xs" ff="monospace" style={{ overflowWrap: "anywhere" }}>
            {r.trade_no}
          </Text>
          <CopyButton value={r.trade_no} label="复制订单号" />
        </Group>
      ),
    },
    quota: {
      key: "quota",
      title: <NoWrap>充值额度</NoWrap>,
      render: (r) => (
        <Text size="sm" fw={500}>
          <QuotaText quota={r.quota} />
        </Text>
      ),
    },
    money: {
      key: "money",
      title: <NoWrap>支付金额</NoWrap>,
      render: (r) => (
        <Text size="sm" style={{ whiteSpace: "nowrap" }}>
          {paidText(r)}
        </Text>
      ),
    },
    method: {
      key: "method",
      title: <NoWrap>支付方式</NoWrap>,
      render: (r) => (
        <Text size="sm" style={{ whiteSpace: "nowrap" }}>
          {methodLabel(r.payment_method)}
        </Text>
      ),
    },
    status: { key: "status", title: <NoWrap>状态</NoWrap>, render: (r) => <OrderStatusBadge status={r.status} /> },
  };
}

/** The wallet's 充值记录: the user's own orders. */
export function ownOrderColumns(): Column<OrderView>[] {
  const c = sharedColumns<OrderView>();
  return [c.time, c.trade_no, c.quota, c.money, c.method, c.status];
}

/** The /orders page: every user's orders, who they belong to, when (and by which admin) they were paid, and 标记已支付. */
export function adminOrderColumns(viewer: { id: number; role: number }, markPaid: RowAction<AdminOrderView>): Column<AdminOrderView>[] {
  const c = sharedColumns<AdminOrderView>();
  return [
    c.time,
    c.trade_no,
    {
      key: "user",
      title: <NoWrap>用户</NoWrap>,
      render: (r) => (
        <Stack gap={0}>
          <Text size="sm" c={r.user_gone ? "dimmed" : undefined} td={r.user_gone ? "line-through" : undefined}>
            {r.username || "（已删除）"}
          </Text>
          <Text size="xs" c="dimmed">
            ID {r.user_id}
          </Text>
        </Stack>
      ),
    },
    c.quota,
    c.money,
    c.method,
    {
      key: "status",
      title: <NoWrap>状态</NoWrap>,
      render: (r) => (
        <Stack gap={2} align="flex-start">
          <OrderStatusBadge status={r.status} />
          {r.complete_time > 0 && (
            <Text size="xs" c="dimmed" style={{ whiteSpace: "nowrap" }} title="完成时间">
              <TimeText seconds={r.complete_time} />
            </Text>
          )}
          {r.completed_by > 0 && (
            <Text size="xs" c="dimmed" style={{ whiteSpace: "nowrap" }}>
              由 {r.completed_by_name || `ID ${r.completed_by}`} 补单
            </Text>
          )}
        </Stack>
      ),
    },
    {
      key: "actions",
      title: <NoWrap>操作</NoWrap>,
      render: (r) => {
        if (!isPayable(r)) return null;
        const why = r.user_gone ? ORDER_MSG.userGone : markPaidRefusal(viewer, { id: r.user_id, role: r.user_role });
        const button = (
          <Button
            size="compact-sm"
            variant="light"
            color="green"
            loading={markPaid.busy(r)}
            disabled={!!why}
            onClick={() => markPaid.run(r)}
          >
            标记已支付
          </Button>
        );
        return why ? (
          <Tooltip label={why} withArrow>
            <span>{button}</span>
          </Tooltip>
        ) : (
          button
        );
      },
    },
  ];
}
