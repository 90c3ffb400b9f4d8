"use client";
// The log filter form: token, model, time range, type, and for an admin channel and user. Times
// are edited in the viewer's zone and sent as Unix seconds.
import { Select, TextInput } from "@mantine/core";
import { TimeRangeFields } from "@/components/data/date-time-field";
import { FilterGrid } from "@/components/data/list-toolbar";
import type { LogActions } from "@/components/logs/use-log-actions";
import { LOG_TYPE_OPTIONS } from "@/lib/logs/display";

export function LogFilterForm({ admin, pending, actions }: { admin: boolean; pending: boolean; actions: LogActions }) {
  const { form, set, search, reset } = actions;
  return (
    <FilterGrid onSearch={search} onReset={reset} pending={pending}>
      <TextInput label="令牌名称" placeholder="可选值" value={form.token_name} onChange={(e) => set("token_name", e.currentTarget.value)} />
      <TextInput label="模型名称" placeholder="可选值" value={form.model_name} onChange={(e) => set("model_name", e.currentTarget.value)} />
      <TimeRangeFields start={form.start_timestamp} end={form.end_timestamp} onChange={set} />
      <Select
        label="类型"
        data={LOG_TYPE_OPTIONS}
        value={String(form.type)}
        onChange={(v) => set("type", Number(v ?? 0))}
        allowDeselect={false}
        comboboxProps={{ withinPortal: true }}
      />
      {admin && (
        <>
          <TextInput
            label="渠道 ID"
            placeholder="可选值"
            inputMode="numeric"
            value={form.channel ? String(form.channel) : ""}
            onChange={(e) => {
              const digits = e.currentTarget.value.replace(/\D/g, "").slice(0, 10);
              set("channel", Math.min(Number(digits) || 0, 2_147_483_647));
            }}
          />
          <TextInput label="用户名称" placeholder="可选值" value={form.username} onChange={(e) => set("username", e.currentTarget.value)} />
        </>
      )}
    </FilterGrid>
  );
}
