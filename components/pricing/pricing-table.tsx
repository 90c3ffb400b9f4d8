"use client";
// The pricing page's interactive part: group switcher, search, sort and the paged table. Rows are
// priced by the server component (lib/billing/pricing-view.ts); every choice is a URL change.
import { Alert, Badge, Button, Group, Select, Stack, Text, TextInput, Title } from "@mantine/core";
import { useState } from "react";
import { CopyButton } from "@/components/data/copy";
import { useQuotaDisplay } from "@/components/data/display";
import { type Column, PagedTable } from "@/components/data/paged-table";
import { useListUrl } from "@/components/data/use-list-url";
import { Icon } from "@/components/icons";
import { BILLING_KIND_LABEL, PRICING_SORTS, type PricingGroup, type PricingRow } from "@/lib/billing/pricing-view";

type Props = {
  group: string;
  groups: PricingGroup[];
  rows: PricingRow[];
  total: number;
  page: number;
  pageSize: number;
  filters: { keyword: string; sort: string };
  inCurrency: boolean;
  signedIn: boolean;
};

export const PRICING_MSG = {
  helpCurrency:
    "按量计费：输入价格 = 模型倍率 × 2 × 分组倍率（美元 / 1M tokens），输出价格 = 输入价格 × 补全倍率；按次计费：每次价格 = 模型价格 × 分组倍率（美元）。",
  /** Per-call prices are charged at the QuotaPerUnit option (quota per US$1). */
  helpQuota: (quotaPerUnit: number) =>
    `价格以点额度计：按量计费的输入价格 = 模型倍率 × 1000000 × 分组倍率（点额度 / 1M tokens），输出价格 = 输入价格 × 补全倍率；按次计费：每次价格 = 模型价格 × ${quotaPerUnit} × 分组倍率（点额度）。`,
  visitor: "未登录时显示默认分组的价格，登录后可切换到您可用的分组。",
  empty: "没有符合条件的模型",
} as const;

export function PricingTable({ group, groups, rows, total, page, pageSize, filters, inCurrency, signedIn }: Props) {
  const list = useListUrl();
  const [keyword, setKeyword] = useState(filters.keyword);
  const unit = inCurrency ? "美元" : "点额度";
  const { quotaPerUnit } = useQuotaDisplay();

  const search = (event: React.FormEvent) => {
    event.preventDefault();
    list.update({ keyword });
  };

  const columns: Column<PricingRow>[] = [
    {
      key: "model",
      title: "模型名称",
      render: (r) => (
        <Stack gap={4} align="flex-start">
          <Group gap={2} wrap="nowrap">
            <Text size="sm" fw={500} style={{ wordBreak: "break-all" }}>
              {r.model_name}
            </Text>
            <CopyButton value={r.model_name} label="复制模型名称" />
          </Group>
          <Badge variant="light" size="sm" color={r.quota_type === 1 ? "violet" : "blue"}>
            {BILLING_KIND_LABEL[r.quota_type]}
          </Badge>
        </Stack>
      ),
    },
    {
      key: "price",
      title: `价格（${unit}）`,
      render: (r) =>
        r.price.kind === "call" ? (
          <Text size="sm" style={{ whiteSpace: "nowrap" }}>
            {r.price.call} / 次
          </Text>
        ) : (
          <Stack gap={0} style={{ whiteSpace: "nowrap" }}>
            <Text size="sm">输入 {r.price.input} / 1M tokens</Text>
            <Text size="sm">输出 {r.price.output} / 1M tokens</Text>
          </Stack>
        ),
    },
    {
      key: "ratio",
      title: "倍率",
      render: (r) =>
        r.quota_type === 1 ? (
          <Ratio label="模型价格" value={r.model_price} />
        ) : (
          <Stack gap={0}>
            <Ratio label="模型倍率" value={r.model_ratio} />
            <Ratio label="补全倍率" value={r.completion_ratio} />
          </Stack>
        ),
    },
  ];

  return (
    <Stack gap="md">
      <Title order={3}>模型价格</Title>
      <Alert color="blue" variant="light" icon={<Icon name="info" size={18} />}>
        <Text size="sm">{inCurrency ? PRICING_MSG.helpCurrency : PRICING_MSG.helpQuota(quotaPerUnit)}</Text>
        {!signedIn && (
          <Text size="sm" mt={4}>
            {PRICING_MSG.visitor}
          </Text>
        )}
      </Alert>
      <form onSubmit={search}>
        <Group gap="xs" wrap="wrap">
          <Select
            aria-label="分组"
            data={groups.map((g) => ({ value: g.value, label: `${g.label}（倍率 ${g.ratio}）` }))}
            value={group}
            onChange={(value) => value && list.update({ group: value })}
            allowDeselect={false}
            disabled={groups.length < 2}
            leftSection={
              <Text size="sm" c="dimmed">
                分组
              </Text>
            }
            leftSectionWidth={48}
            comboboxProps={{ withinPortal: true }}
            style={{ flex: "1 1 220px", maxWidth: 320 }}
          />
          <Group gap="xs" wrap="nowrap" style={{ flex: "2 1 260px" }}>
            <TextInput
              aria-label="模型名称"
              placeholder="搜索模型名称 ..."
              value={keyword}
              onChange={(e) => setKeyword(e.currentTarget.value)}
              leftSection={<Icon name="search" size={16} />}
              style={{ flex: 1 }}
            />
            <Button type="submit" variant="light" loading={list.pending}>
              查询
            </Button>
          </Group>
          <Select
            aria-label="排序"
            data={PRICING_SORTS.map((s) => ({ value: s.value, label: s.label }))}
            value={filters.sort}
            onChange={(value) => value && list.update({ sort: value === "name" ? null : value })}
            allowDeselect={false}
            comboboxProps={{ withinPortal: true }}
            w={150}
          />
        </Group>
      </form>
      <PagedTable
        label="模型价格列表"
        page={{ items: rows, page, page_size: pageSize, total }}
        columns={columns}
        list={list}
        minWidth={360}
        empty={PRICING_MSG.empty}
      />
    </Stack>
  );
}

/** "模型倍率 1.25", wrapping (on a narrow screen) only between the label and the number. */
function Ratio({ label, value }: { label: string; value: number }) {
  return (
    <Text size="sm" c="dimmed">
      <span style={{ whiteSpace: "nowrap" }}>{label}</span> {value}
    </Text>
  );
}
