"use client";
// The log filter form: token, model, time range, type, and for an admin channel and user. Times
// are edited in the viewer's zone and sent as Unix seconds.
import { Button, Group, Select, SimpleGrid, TextInput } from "@mantine/core";
import { DateTimeField, fieldToSeconds, secondsToField } from "@/components/data/date-time-field";
import { useTimeZone } from "@/components/data/display";
import { Icon } from "@/components/icons";
import type { LogActions } from "@/components/logs/use-log-actions";
import { LOG_TYPE_OPTIONS } from "@/lib/logs/display";

export function LogFilterForm({ admin, pending, actions }: { admin: boolean; pending: boolean; actions: LogActions }) {
  const zone = useTimeZone();
  const { form, set, search, reset } = actions;
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        search();
      }}
      aria-label="筛选"
    >
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="xs" verticalSpacing="xs">
        <TextInput
          label="令牌名称"
          placeholder="可选值"
          value={form.token_name}
          onChange={(e) => set("token_name", e.currentTarget.value)}
        />
        <TextInput
          label="模型名称"
          placeholder="可选值"
          value={form.model_name}
          onChange={(e) => set("model_name", e.currentTarget.value)}
        />
        <DateTimeField
          label="起始时间"
          withSeconds
          value={secondsToField(form.start_timestamp, zone)}
          onChange={(v) => set("start_timestamp", fieldToSeconds(v))}
        />
        <DateTimeField
          label="结束时间"
          withSeconds
          value={secondsToField(form.end_timestamp, zone)}
          onChange={(v) => set("end_timestamp", fieldToSeconds(v))}
        />
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
            <TextInput
              label="用户名称"
              placeholder="可选值"
              value={form.username}
              onChange={(e) => set("username", e.currentTarget.value)}
            />
          </>
        )}
        <Group gap="xs" align="flex-end">
          <Button type="submit" loading={pending} leftSection={<Icon name="search" size={16} />}>
            查询
          </Button>
          <Button variant="default" onClick={reset}>
            重置
          </Button>
        </Group>
      </SimpleGrid>
    </form>
  );
}
