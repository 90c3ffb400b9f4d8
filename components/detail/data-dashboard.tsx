"use client";
// The data dashboard's interactive part: the range, granularity and (admin) user filter live in
// the URL; the buckets the server component read are summed per period and per model (or user)
// and drawn with @mantine/charts.
import { AreaChart, BarChart, DonutChart } from "@mantine/charts";
import {
  Alert,
  Box,
  Button,
  Group,
  LoadingOverlay,
  Paper,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useMemo, useState } from "react";
import { DateTimeField } from "@/components/data/date-time-field";
import { useQuotaDisplay, useTimeZone } from "@/components/data/display";
import { useListUrl } from "@/components/data/use-list-url";
import { Icon } from "@/components/icons";
import { formatCompact, formatQuota, formatTimestamp } from "@/lib/ui/format";
import {
  buildUsageSeries,
  GRANULARITIES,
  GRANULARITY_LABEL,
  type Granularity,
  OTHERS,
  perMinute,
  type UsageRow,
} from "@/lib/ui/usage-series";

export const DETAIL_MSG = {
  title: "数据看板",
  disabled: "数据看板未开启：新的用量不会被统计。超级管理员可在「设置 → 运营设置」中开启。",
  empty: "所选时间范围内没有用量数据",
  badTime: "请输入有效的开始和结束时间",
} as const;

const COLORS = ["blue.6", "teal.6", "orange.6", "grape.6", "cyan.6", "pink.6", "lime.7", "indigo.5"];

/** A Unix time as a date-and-time field's value in `timeZone`. */
const toLocalInput = (seconds: number, timeZone?: string) => formatTimestamp(seconds, timeZone).slice(0, 16).replace(" ", "T");

/** A date-and-time field's value (the browser's zone) as a Unix time, or null. */
function fromLocalInput(value: string): number | null {
  const ms = new Date(value).getTime();
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

type Props = {
  rows: UsageRow[];
  start: number;
  end: number;
  granularity: Granularity;
  admin: boolean;
  enabled: boolean;
  error: string;
  username: string;
  byUser: boolean;
};

export function DataDashboard({ rows, start, end, granularity, admin, enabled, error, username, byUser }: Props) {
  const list = useListUrl();
  const display = useQuotaDisplay();
  const timeZone = useTimeZone();
  const [from, setFrom] = useState(() => toLocalInput(start, timeZone));
  const [to, setTo] = useState(() => toLocalInput(end, timeZone));
  const [who, setWho] = useState(username);
  const [inputError, setInputError] = useState("");

  const usage = useMemo(
    () => buildUsageSeries(rows, { start, end, granularity, dimension: byUser ? "user" : "model", timeZone }),
    [rows, start, end, granularity, byUser, timeZone],
  );
  const { rpm, tpm } = perMinute(usage.totals, start, end);
  const series = usage.series.map((name, i) => ({ name, color: name === OTHERS ? "gray.6" : COLORS[i % COLORS.length]! }));
  const quotaText = (v: number) => formatQuota(v, display);

  const search = (event: React.FormEvent) => {
    event.preventDefault();
    const s = fromLocalInput(from);
    const e = fromLocalInput(to);
    if (s === null || e === null) {
      setInputError(DETAIL_MSG.badTime);
      return;
    }
    setInputError("");
    list.update({ start_timestamp: s, end_timestamp: e, ...(admin ? { username: who } : {}) });
  };

  const stats = [
    { label: "消耗额度", value: quotaText(usage.totals.quota) },
    { label: "请求次数", value: formatCompact(usage.totals.count) },
    { label: "Token 用量", value: formatCompact(usage.totals.token_used) },
    { label: "平均 RPM", value: rpm.toFixed(3) },
    { label: "平均 TPM", value: formatCompact(Math.round(tpm * 100) / 100) },
  ];

  const chartProps = {
    h: 280,
    dataKey: "period",
    series,
    withLegend: true,
    legendProps: { verticalAlign: "bottom" as const, height: 48 },
    tickLine: "y" as const,
    xAxisProps: { minTickGap: 16 },
  };

  return (
    <Stack gap="md">
      <Title order={3}>{DETAIL_MSG.title}</Title>
      {!enabled && (
        <Alert color="yellow" variant="light">
          {DETAIL_MSG.disabled}
        </Alert>
      )}
      <form onSubmit={search}>
        <Group gap="xs" align="flex-end" wrap="wrap">
          <DateTimeField label="起始时间" value={from} onChange={setFrom} style={{ flex: "1 1 200px" }} />
          <DateTimeField label="结束时间" value={to} onChange={setTo} style={{ flex: "1 1 200px" }} />
          {admin && (
            <TextInput
              label="用户名称"
              placeholder="全部用户"
              value={who}
              onChange={(e) => setWho(e.currentTarget.value)}
              style={{ flex: "1 1 160px" }}
            />
          )}
          <Button type="submit" variant="light" loading={list.pending} leftSection={<Icon name="search" size={16} />}>
            查询
          </Button>
        </Group>
      </form>
      <Group gap="md" wrap="wrap">
        <Group gap="xs">
          <Text size="sm" c="dimmed">
            时间粒度
          </Text>
          <SegmentedControl
            aria-label="时间粒度"
            size="xs"
            value={granularity}
            data={GRANULARITIES.map((g) => ({ value: g, label: GRANULARITY_LABEL[g] }))}
            onChange={(value) => list.update({ granularity: value })}
          />
        </Group>
        {admin && (
          <Group gap="xs">
            <Text size="sm" c="dimmed">
              分组方式
            </Text>
            <SegmentedControl
              aria-label="分组方式"
              size="xs"
              value={byUser ? "user" : "model"}
              data={[
                { value: "model", label: "按模型" },
                { value: "user", label: "按用户" },
              ]}
              onChange={(value) => list.update({ by: value === "user" ? "user" : null })}
            />
          </Group>
        )}
      </Group>
      {(error || inputError) && (
        <Alert color="red" variant="light">
          {inputError || error}
        </Alert>
      )}
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }} spacing="sm">
        {stats.map((s) => (
          <Paper key={s.label} withBorder p="sm" radius="md">
            <Text size="xs" c="dimmed">
              {s.label}
            </Text>
            <Text fw={600} size="lg" data-testid={`stat-${s.label}`}>
              {s.value}
            </Text>
          </Paper>
        ))}
      </SimpleGrid>
      <Box pos="relative">
        <LoadingOverlay visible={list.pending} zIndex={10} overlayProps={{ blur: 1 }} />
        {rows.length === 0 ? (
          <Paper withBorder p="xl" radius="md">
            <Text c="dimmed" ta="center">
              {DETAIL_MSG.empty}
            </Text>
          </Paper>
        ) : (
          <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
            <ChartCard title={byUser ? "额度消耗（按用户）" : "额度消耗（按模型）"}>
              <BarChart {...chartProps} data={usage.data.quota} type="stacked" valueFormatter={quotaText} />
            </ChartCard>
            <ChartCard title={byUser ? "额度占比（按用户）" : "额度占比（按模型）"}>
              <Group justify="center" h={280}>
                <DonutChart
                  size={200}
                  thickness={28}
                  data={usage.shares.map((s, i) => ({ name: s.name, value: s.quota, color: series[i]!.color }))}
                  valueFormatter={quotaText}
                  tooltipDataSource="segment"
                  chartLabel={quotaText(usage.totals.quota)}
                />
                <Stack gap={4} component="ul" aria-label="占比图例" m={0} p={0} style={{ listStyle: "none" }}>
                  {usage.shares.map((s, i) => (
                    <Group key={s.name} gap={6} wrap="nowrap" component="li">
                      <Box
                        w={10}
                        h={10}
                        style={{ borderRadius: 2, background: `var(--mantine-color-${series[i]!.color.replace(".", "-")})` }}
                      />
                      <Text size="xs" truncate maw={160}>
                        {s.name}
                      </Text>
                      <Text size="xs" c="dimmed">
                        {quotaText(s.quota)}
                      </Text>
                    </Group>
                  ))}
                </Stack>
              </Group>
            </ChartCard>
            <ChartCard title="请求次数">
              <BarChart {...chartProps} data={usage.data.count} type="stacked" valueFormatter={(v) => formatCompact(v)} />
            </ChartCard>
            <ChartCard title="Token 用量">
              <AreaChart
                {...chartProps}
                data={usage.data.token_used}
                type="stacked"
                curveType="linear"
                withDots={false}
                valueFormatter={(v) => formatCompact(v)}
              />
            </ChartCard>
          </SimpleGrid>
        )}
      </Box>
    </Stack>
  );
}

function ChartCard({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Paper withBorder p="md" radius="md" role="figure" aria-label={title}>
      <Text fw={600} mb="sm">
        {title}
      </Text>
      {children}
    </Paper>
  );
}
