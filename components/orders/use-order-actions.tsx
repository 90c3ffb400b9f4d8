"use client";
// The /orders page's one row action: 标记已支付 (补单) after the admin confirms it checked the
// gateway; the toast says what was credited and the list re-renders from the server.
import { Stack, Table, Text } from "@mantine/core";
import { QuotaText, useQuotaDisplay } from "@/components/data/display";
import type { ListUrl } from "@/components/data/use-list-url";
import { useRowAction } from "@/components/data/use-row-action";
import { paidText } from "@/components/orders/order-columns";
import { api } from "@/lib/client/api";
import type { MarkedPaid } from "@/lib/payments/mark-paid";
import { type AdminOrderView, ORDER_MSG } from "@/lib/payments/order-view";
import { formatQuota } from "@/lib/ui/format";

export const MARK_PAID_MSG = {
  title: "标记已支付",
  check: "请先在支付网关核实该订单已付款",
  confirm: "确认已付款",
  done: (credited: string) => `${ORDER_MSG.completed}，充值额度：${credited}`,
} as const;

/** What the admin is about to credit, under the reminder to check the gateway first. */
function ConfirmBody({ order }: { order: AdminOrderView }) {
  const rows: [string, React.ReactNode][] = [
    ["订单号", order.trade_no],
    ["用户", `${order.username} (ID ${order.user_id})`],
    ["支付金额", paidText(order)],
    ["充值额度", <QuotaText key="q" quota={order.quota} />],
  ];
  return (
    <Stack gap="sm">
      <Text size="sm" fw={500}>
        {MARK_PAID_MSG.check}
      </Text>
      <Table withRowBorders={false} verticalSpacing={2}>
        <Table.Tbody>
          {rows.map(([label, value]) => (
            <Table.Tr key={label}>
              <Table.Td c="dimmed" w={90}>
                {label}
              </Table.Td>
              <Table.Td style={{ overflowWrap: "anywhere" }}>{value}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

export function useMarkPaid(list: ListUrl) {
  const display = useQuotaDisplay();
  return useRowAction<AdminOrderView, MarkedPaid>(
    (_row, data) => MARK_PAID_MSG.done(formatQuota(data.quota, display)),
    (row) => ({ title: MARK_PAID_MSG.title, message: <ConfirmBody order={row} />, confirmLabel: MARK_PAID_MSG.confirm }),
    (row) => api<MarkedPaid>("POST", "/api/user/topup/complete", { trade_no: row.trade_no }),
    list.refresh,
  );
}
