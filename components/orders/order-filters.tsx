"use client";
// The /orders filter form: the user (a username or an id), status, payment method and a range of
// creation times. Its values go to the URL on 查询; 重置 removes them. Times are edited in the
// viewer's zone.
import { Select, TextInput } from "@mantine/core";
import { useState } from "react";
import { TimeRangeFields } from "@/components/data/date-time-field";
import { FilterGrid } from "@/components/data/list-toolbar";
import type { ListUrl } from "@/components/data/use-list-url";
import type { OrderFilters } from "@/lib/payments/order-list";
import { ORDER_STATUS_OPTIONS, PAYMENT_METHOD_OPTIONS } from "@/lib/payments/order-view";

export function OrderFilterForm({ filters, list }: { filters: OrderFilters; list: ListUrl }) {
  const [form, setForm] = useState(filters);
  const set = <K extends keyof OrderFilters>(key: K, value: OrderFilters[K]) => setForm((f) => ({ ...f, [key]: value }));
  const search = () =>
    list.update({
      username: form.username,
      status: form.status,
      payment_method: form.payment_method,
      start_timestamp: form.start_timestamp || null,
      end_timestamp: form.end_timestamp || null,
    });
  const reset = () => list.update({ username: null, status: null, payment_method: null, start_timestamp: null, end_timestamp: null });

  return (
    <FilterGrid onSearch={search} onReset={reset} pending={list.pending}>
      <TextInput
        label="用户名"
        placeholder="用户名或用户 ID"
        value={form.username}
        onChange={(e) => set("username", e.currentTarget.value)}
      />
      <Select
        label="状态"
        data={ORDER_STATUS_OPTIONS}
        value={form.status}
        onChange={(v) => set("status", (v ?? "") as OrderFilters["status"])}
        allowDeselect={false}
        comboboxProps={{ withinPortal: true }}
      />
      <Select
        label="支付方式"
        data={PAYMENT_METHOD_OPTIONS}
        value={form.payment_method}
        onChange={(v) => set("payment_method", (v ?? "") as OrderFilters["payment_method"])}
        allowDeselect={false}
        comboboxProps={{ withinPortal: true }}
      />
      <TimeRangeFields start={form.start_timestamp} end={form.end_timestamp} onChange={set} />
    </FilterGrid>
  );
}
