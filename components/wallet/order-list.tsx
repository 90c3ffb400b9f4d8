"use client";
// The wallet's 充值记录: the user's own top-up orders, newest first, paged in the URL under keys of
// its own (orders_p, orders_size), so paging keeps the return banner's out_trade_no / trade_no.
import { Card, Stack, Title } from "@mantine/core";
import { PagedTable } from "@/components/data/paged-table";
import { useListUrl } from "@/components/data/use-list-url";
import { ownOrderColumns } from "@/components/orders/order-columns";
import type { Page } from "@/lib/db/paging";
import { type OrderView, WALLET_ORDERS_PREFIX } from "@/lib/payments/order-view";

const COLUMNS = ownOrderColumns();

export function TopUpOrders({ page }: { page: Page<OrderView> }) {
  const list = useListUrl(WALLET_ORDERS_PREFIX);
  return (
    <Card withBorder padding="lg" radius="md">
      <Stack gap="sm">
        <Title order={4}>充值记录</Title>
        <PagedTable label="充值记录" page={page} columns={COLUMNS} list={list} minWidth={760} empty="暂无充值记录" />
      </Stack>
    </Card>
  );
}
