"use client";
// The /orders page's interactive part (admin): the filters (in the URL), the table of every
// user's top-up orders and the 标记已支付 button of a pending or expired one.
import { Stack, Text, Title } from "@mantine/core";
import { PagedTable } from "@/components/data/paged-table";
import { useListUrl } from "@/components/data/use-list-url";
import { adminOrderColumns } from "@/components/orders/order-columns";
import { OrderFilterForm } from "@/components/orders/order-filters";
import { useMarkPaid } from "@/components/orders/use-order-actions";
import type { Page } from "@/lib/db/paging";
import type { AdminOrderView, OrderFilters } from "@/lib/payments/order-list";

type Props = { page: Page<AdminOrderView>; filters: OrderFilters; viewer: { id: number; role: number } };

export function OrderList({ page, filters, viewer }: Props) {
  const list = useListUrl();
  const markPaid = useMarkPaid(list);
  return (
    <Stack gap="md">
      <Stack gap={4}>
        <Title order={3}>充值订单</Title>
        <Text size="sm" c="dimmed">
          所有用户的在线充值订单。支付网关的回调未到达时，可在网关后台核实已付款后「标记已支付」补单：额度只会到账一次，操作记入审计日志。
        </Text>
      </Stack>
      <OrderFilterForm filters={filters} list={list} />
      <PagedTable
        label="充值订单列表"
        page={page}
        columns={adminOrderColumns(viewer, markPaid)}
        list={list}
        minWidth={1000}
        empty="没有符合条件的充值订单"
      />
    </Stack>
  );
}
