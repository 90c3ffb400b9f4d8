"use client";
// The log page's interactive part: summary badges, the filter form (its values live in the URL),
// the table with per-role columns and expandable rows, and the admin's user lookup.
import {
  ActionIcon,
  Anchor,
  Badge,
  type BadgeProps,
  Button,
  Group,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
} from "@mantine/core";
import { useState } from "react";
import { DateTimeField } from "@/components/data/date-time-field";
import { QuotaText, TimeText, useTimeZone } from "@/components/data/display";
import { type Column, PagedTable } from "@/components/data/paged-table";
import { useListUrl } from "@/components/data/use-list-url";
import { Icon } from "@/components/icons";
import { LogDetails } from "@/components/logs/log-details";
import { openUserLookup } from "@/components/logs/user-lookup";
import {
  firstTokenColor,
  firstTokenSeconds,
  LOG_TYPE_OPTIONS,
  logTypeLook,
  parseOther,
  retryChain,
  latencyColor,
  statQuotaLabel,
} from "@/lib/logs/display";
import type { AdminLogItem, LogPage, LogStat } from "@/lib/logs/query";
import type { LogFilters } from "@/lib/logs/range";
import { LOG_TYPE } from "@/lib/logs/write";
import { formatTimestamp } from "@/lib/ui/format";

/** A row as the table holds it: self rows get a place-in-list id and channel 0. */
export type LogRow = AdminLogItem;

type Props = {
  admin: boolean;
  page: LogPage<LogRow>;
  stat: LogStat;
  filters: LogFilters;
};

/** "2026-11-24T10:00:00" for a date-and-time field, in the viewer's zone; "" for no bound. */
const toInput = (seconds: number, zone?: string) => (seconds > 0 ? formatTimestamp(seconds, zone).replace(" ", "T") : "");
/** A date-and-time field's value (the browser's zone) as Unix seconds; 0 for an empty field. */
const fromInput = (value: string) => {
  const ms = new Date(value).getTime();
  return value && Number.isFinite(ms) ? Math.floor(ms / 1000) : 0;
};

export function LogList({ admin, page, stat, filters }: Props) {
  const list = useListUrl();
  const zone = useTimeZone();
  const [form, setForm] = useState(filters);
  const [open, setOpen] = useState<number[]>([]);
  const set = <K extends keyof LogFilters>(key: K, value: LogFilters[K]) => setForm((f) => ({ ...f, [key]: value }));

  const search = (event: React.FormEvent) => {
    event.preventDefault();
    setOpen([]);
    list.update({
      type: form.type || null,
      token_name: form.token_name,
      model_name: form.model_name,
      // 0 is written out: an emptied time means "no bound", an absent one the default range.
      start_timestamp: String(form.start_timestamp),
      end_timestamp: String(form.end_timestamp),
      ...(admin ? { username: form.username, channel: form.channel || null } : {}),
    });
  };

  const reset = () => {
    setOpen([]);
    list.update({
      type: null,
      token_name: null,
      model_name: null,
      start_timestamp: null,
      end_timestamp: null,
      username: null,
      channel: null,
    });
  };

  // The filter the shown stat was computed for (the URL's), not the form being edited.
  const quotaLabel = statQuotaLabel(filters.type);

  const toggle = (id: number) => setOpen((ids) => (ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id]));

  const columns: Column<LogRow>[] = [
    {
      key: "expand",
      title: "",
      width: 36,
      render: (row) => (
        <ActionIcon
          variant="subtle"
          color="gray"
          size="sm"
          aria-label={open.includes(row.id) ? "收起详情" : "展开详情"}
          aria-expanded={open.includes(row.id)}
          onClick={() => toggle(row.id)}
        >
          <span
            style={{ display: "inline-flex", transform: open.includes(row.id) ? "none" : "rotate(-90deg)", transition: "transform 120ms" }}
          >
            <Icon name="chevronDown" size={14} />
          </span>
        </ActionIcon>
      ),
    },
    {
      key: "time",
      title: <NoWrap>时间</NoWrap>,
      render: (row) => (
        <Text size="sm" style={{ whiteSpace: "nowrap" }}>
          <TimeText seconds={row.created_at} />
        </Text>
      ),
    },
    ...(admin
      ? ([
          {
            key: "channel",
            title: <NoWrap>渠道</NoWrap>,
            render: (row) => (row.channel ? <Tag variant="default">{row.channel}</Tag> : ""),
          },
          {
            key: "user",
            title: <NoWrap>用户</NoWrap>,
            render: (row) =>
              row.username ? (
                <Anchor component="button" type="button" size="sm" onClick={() => openUserLookup(row.user_id, row.username)}>
                  {row.username}
                </Anchor>
              ) : (
                ""
              ),
          },
        ] satisfies Column<LogRow>[])
      : []),
    { key: "token", title: <NoWrap>令牌</NoWrap>, render: (row) => (row.token_name ? <Tag variant="light">{row.token_name}</Tag> : "") },
    {
      key: "type",
      title: <NoWrap>类型</NoWrap>,
      render: (row) => {
        const look = logTypeLook(row.type);
        return (
          <Tag color={look.color} variant="light">
            {look.label}
          </Tag>
        );
      },
    },
    { key: "model", title: <NoWrap>模型</NoWrap>, render: (row) => (row.model_name ? <Tag variant="outline">{row.model_name}</Tag> : "") },
    { key: "latency", title: <NoWrap>用时/首字</NoWrap>, render: (row) => <Latency row={row} /> },
    {
      key: "prompt",
      title: <NoWrap>提示</NoWrap>,
      align: "right",
      render: (row) => (row.type === LOG_TYPE.consume ? row.prompt_tokens : ""),
    },
    {
      key: "completion",
      title: <NoWrap>补全</NoWrap>,
      align: "right",
      render: (row) => (row.type === LOG_TYPE.consume ? row.completion_tokens : ""),
    },
    {
      key: "quota",
      title: <NoWrap>花费</NoWrap>,
      align: "right",
      render: (row) =>
        row.type === LOG_TYPE.consume || row.quota !== 0 ? (
          <QuotaText quota={row.quota} digits={row.type === LOG_TYPE.consume ? 6 : 2} />
        ) : (
          ""
        ),
    },
    ...(admin
      ? ([{ key: "retry", title: <NoWrap>重试</NoWrap>, render: (row) => <RetryChain other={row.other} /> }] satisfies Column<LogRow>[])
      : []),
    {
      key: "content",
      title: <NoWrap>详情</NoWrap>,
      render: (row) => (
        <Text size="sm" lineClamp={1} maw={280} title={row.content}>
          {row.content}
        </Text>
      ),
    },
  ];

  return (
    <Stack gap="md">
      <Title order={3}>使用日志</Title>
      <Group gap="xs" aria-label="统计">
        {quotaLabel && (
          <Badge size="lg" variant="light" color="blue" tt="none">
            {quotaLabel}：
            <QuotaText quota={stat.quota} />
          </Badge>
        )}
        <Badge size="lg" variant="light" color="pink" tt="none">
          RPM：{stat.rpm}
        </Badge>
        <Badge size="lg" variant="light" color="grape" tt="none">
          TPM：{stat.tpm}
        </Badge>
      </Group>
      <form onSubmit={search} aria-label="筛选">
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
            value={toInput(form.start_timestamp, zone)}
            onChange={(v) => set("start_timestamp", fromInput(v))}
          />
          <DateTimeField
            label="结束时间"
            withSeconds
            value={toInput(form.end_timestamp, zone)}
            onChange={(v) => set("end_timestamp", fromInput(v))}
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
            <Button type="submit" loading={list.pending} leftSection={<Icon name="search" size={16} />}>
              查询
            </Button>
            <Button variant="default" onClick={reset}>
              重置
            </Button>
          </Group>
        </SimpleGrid>
      </form>
      <PagedTable
        label="日志列表"
        rows={page.items}
        columns={columns}
        total={page.total}
        page={page.page}
        pageSize={page.page_size}
        list={list}
        minWidth={admin ? 1200 : 960}
        expanded={(row) => (open.includes(row.id) ? <LogDetails row={row} admin={admin} /> : null)}
        empty="没有符合条件的日志"
      />
    </Stack>
  );
}

/** A badge as the log's cells use it: as typed (no capitals), never squeezed by the table. */
function Tag(props: BadgeProps & { children: React.ReactNode }) {
  return <Badge tt="none" miw="max-content" {...props} />;
}

const NoWrap = ({ children }: { children: React.ReactNode }) => <span style={{ whiteSpace: "nowrap" }}>{children}</span>;

/** use_time coloured per spec §9, the first-token time beside it, and the stream tag. */
function Latency({ row }: { row: LogRow }) {
  if (row.type !== LOG_TYPE.consume && row.type !== LOG_TYPE.error) return null;
  const frt = row.is_stream ? firstTokenSeconds(parseOther(row.other)) : null;
  return (
    <Group gap={4} wrap="nowrap">
      <Tag color={latencyColor(row.use_time)} variant="light">
        {row.use_time} s
      </Tag>
      {frt !== null && (
        <Tooltip label="首字时间" withArrow>
          <Tag color={firstTokenColor(frt)} variant="light">
            {frt.toFixed(1)} s
          </Tag>
        </Tooltip>
      )}
      <Tag color={row.is_stream ? "blue" : "gray"} variant="outline">
        {row.is_stream ? "流" : "非流"}
      </Tag>
    </Group>
  );
}

/** The channels tried, when more than one was: "3 → 7". */
function RetryChain({ other }: { other: string }) {
  const chain = retryChain(parseOther(other));
  if (chain.length < 2) return null;
  return (
    <Text size="sm" style={{ whiteSpace: "nowrap" }}>
      渠道：{chain.join(" → ")}
    </Text>
  );
}
