"use client";
// The log page's interactive part: summary badges, the filter form (its values live in the URL),
// the table with per-role columns and expandable rows, the admin's user lookup, and the CSV export
// of the shown filter.
import { Badge, Group, Stack, Title } from "@mantine/core";
import { QuotaText } from "@/components/data/display";
import { PagedTable } from "@/components/data/paged-table";
import { useListUrl } from "@/components/data/use-list-url";
import { LogDetails } from "@/components/logs/log-details";
import { type LogRow, logColumns } from "@/components/logs/log-columns";
import { LogExportButton } from "@/components/logs/log-export";
import { LogFilterForm } from "@/components/logs/log-filters";
import { useLogActions } from "@/components/logs/use-log-actions";
import type { Page } from "@/lib/db/paging";
import { statQuotaLabel } from "@/lib/logs/display";
import type { LogStat } from "@/lib/logs/query";
import type { LogFilters } from "@/lib/logs/range";

export type { LogRow };

type Props = {
  admin: boolean;
  page: Page<LogRow>;
  stat: LogStat;
  filters: LogFilters;
};

export function LogList({ admin, page, stat, filters }: Props) {
  const list = useListUrl();
  const actions = useLogActions(list, admin, filters);
  // The filter the shown stat was computed for (the URL's), not the form being edited.
  const quotaLabel = statQuotaLabel(filters.type);

  return (
    <Stack gap="md">
      <Group justify="space-between" gap="sm">
        <Title order={3}>使用日志</Title>
        <LogExportButton admin={admin} filters={filters} />
      </Group>
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
      <LogFilterForm admin={admin} pending={list.pending} actions={actions} />
      <PagedTable
        label="日志列表"
        page={page}
        columns={logColumns({ admin, isOpen: actions.isOpen, toggle: actions.toggle })}
        list={list}
        minWidth={admin ? 1200 : 960}
        expanded={(row) => (actions.isOpen(row.id) ? <LogDetails row={row} admin={admin} /> : null)}
        empty="没有符合条件的日志"
      />
    </Stack>
  );
}
