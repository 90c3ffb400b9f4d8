"use client";
// The filter form of /midjourney and /task: channel (admin), task id and a range of submit times.
// Its values go to the URL on 查询; 重置 removes them (the page's default range comes back).
// Times are edited in the viewer's zone and sent as Unix seconds.
import { TextInput } from "@mantine/core";
import { useState } from "react";
import { TimeRangeFields } from "@/components/data/date-time-field";
import { FilterGrid } from "@/components/data/list-toolbar";
import type { ListUrl } from "@/components/data/use-list-url";
import { INT_COLUMN_MAX } from "@/lib/db/num";

type Filters<K extends string> = { channel_id: number; start_timestamp: number; end_timestamp: number } & Record<K, string>;

type Props<K extends string> = { admin: boolean; idKey: K; filters: Filters<K>; list: ListUrl };

export function TaskFilterForm<K extends "mj_id" | "task_id">({ admin, idKey, filters, list }: Props<K>) {
  const [form, setForm] = useState(filters);
  const set = (key: string, value: string | number) => setForm((f) => ({ ...f, [key]: value }));
  const search = () =>
    list.update({
      [idKey]: form[idKey],
      // 0 is written out: an emptied time means "no bound", an absent one the default range.
      start_timestamp: String(form.start_timestamp),
      end_timestamp: String(form.end_timestamp),
      ...(admin ? { channel_id: form.channel_id || null } : {}),
    });
  const reset = () => list.update({ channel_id: null, [idKey]: null, start_timestamp: null, end_timestamp: null });

  return (
    <FilterGrid onSearch={search} onReset={reset} pending={list.pending}>
      {admin && (
        <TextInput
          label="渠道 ID"
          placeholder="可选值"
          inputMode="numeric"
          value={form.channel_id ? String(form.channel_id) : ""}
          onChange={(e) => {
            const digits = e.currentTarget.value.replace(/\D/g, "").slice(0, 10);
            set("channel_id", Math.min(Number(digits) || 0, INT_COLUMN_MAX));
          }}
        />
      )}
      <TextInput label="任务 ID" placeholder="可选值" value={form[idKey]} onChange={(e) => set(idKey, e.currentTarget.value)} />
      <TimeRangeFields start={form.start_timestamp} end={form.end_timestamp} onChange={set} />
    </FilterGrid>
  );
}
