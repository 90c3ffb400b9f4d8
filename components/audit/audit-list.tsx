"use client";
// The audit page's interactive part: the filter form (its values live in the URL) and the table.
import { Stack, Text, Title } from "@mantine/core";
import { auditColumns } from "@/components/audit/audit-columns";
import { AuditFilterForm } from "@/components/audit/audit-filters";
import { PagedTable } from "@/components/data/paged-table";
import { useListUrl } from "@/components/data/use-list-url";
import type { AuditFilters, AuditItem } from "@/lib/audit/read";
import type { Page } from "@/lib/db/paging";

const COLUMNS = auditColumns();

export function AuditList({ page, filters }: { page: Page<AuditItem>; filters: AuditFilters }) {
  const list = useListUrl();
  return (
    <Stack gap="md">
      <Stack gap={4}>
        <Title order={3}>审计日志</Title>
        <Text size="sm" c="dimmed">
          管理员和超级管理员对用户、渠道、兑换码和系统设置的每一次修改，含操作者、对象、IP 和时间。密钥类内容只记录长度。
        </Text>
      </Stack>
      <AuditFilterForm filters={filters} list={list} />
      <PagedTable label="审计日志列表" page={page} columns={COLUMNS} list={list} minWidth={960} empty="没有符合条件的审计记录" />
    </Stack>
  );
}
