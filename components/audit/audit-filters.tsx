"use client";
// The audit filter form: actor (a username or an id), action, target (kind and id) and a time
// range. Its values go to the URL on 查询; 重置 removes them. Times are edited in the viewer's zone.
import { Select, TextInput } from "@mantine/core";
import { useState } from "react";
import { TimeRangeFields } from "@/components/data/date-time-field";
import { FilterGrid } from "@/components/data/list-toolbar";
import type { ListUrl } from "@/components/data/use-list-url";
import { AUDIT_ACTION_OPTIONS, AUDIT_TARGET_LABEL, isAuditAction } from "@/lib/audit/actions";
import type { AuditFilters } from "@/lib/audit/read";

const ACTION_OPTIONS = [{ value: "", label: "全部操作" }, ...AUDIT_ACTION_OPTIONS];
const TARGET_OPTIONS = [
  { value: "", label: "全部对象" },
  ...Object.entries(AUDIT_TARGET_LABEL).map(([value, label]) => ({ value, label })),
];

export function AuditFilterForm({ filters, list }: { filters: AuditFilters; list: ListUrl }) {
  const [form, setForm] = useState(filters);
  const set = <K extends keyof AuditFilters>(key: K, value: AuditFilters[K]) => setForm((f) => ({ ...f, [key]: value }));
  const search = () =>
    list.update({
      actor: form.actor,
      action: form.action,
      target_type: form.target_type,
      target: form.target,
      start_timestamp: form.start_timestamp || null,
      end_timestamp: form.end_timestamp || null,
    });
  const reset = () =>
    list.update({ actor: null, action: null, target_type: null, target: null, start_timestamp: null, end_timestamp: null });

  return (
    <FilterGrid onSearch={search} onReset={reset} pending={list.pending}>
      <TextInput label="操作者" placeholder="用户名或用户 ID" value={form.actor} onChange={(e) => set("actor", e.currentTarget.value)} />
      <Select
        label="操作"
        data={ACTION_OPTIONS}
        value={form.action}
        onChange={(v) => set("action", v && isAuditAction(v) ? v : "")}
        allowDeselect={false}
        searchable
        comboboxProps={{ withinPortal: true }}
      />
      <Select
        label="对象类型"
        data={TARGET_OPTIONS}
        value={form.target_type}
        onChange={(v) => set("target_type", v ?? "")}
        allowDeselect={false}
        comboboxProps={{ withinPortal: true }}
      />
      <TextInput label="对象 ID" placeholder="ID 或设置项名称" value={form.target} onChange={(e) => set("target", e.currentTarget.value)} />
      <TimeRangeFields start={form.start_timestamp} end={form.end_timestamp} onChange={set} />
    </FilterGrid>
  );
}
