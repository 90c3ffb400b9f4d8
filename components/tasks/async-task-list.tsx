"use client";
// The /task page's interactive part: the filters (in the URL) and the table of async tasks.
import { Stack, Title } from "@mantine/core";
import { PagedTable } from "@/components/data/paged-table";
import { useListUrl } from "@/components/data/use-list-url";
import { asyncTaskColumns } from "@/components/tasks/async-task-columns";
import { TaskFilterForm } from "@/components/tasks/task-filters";
import type { Page } from "@/lib/db/paging";
import type { AsyncTaskFilters, AsyncTaskItem } from "@/lib/tasks/query";

type Props = {
  admin: boolean;
  page: Page<AsyncTaskItem>;
  filters: AsyncTaskFilters;
  /** When the rows were read (Unix ms): a running task's spend time counts to here. */
  now: number;
};

export function AsyncTaskList({ admin, page, filters, now }: Props) {
  const list = useListUrl();
  return (
    <Stack gap="md">
      <Title order={3}>任务日志</Title>
      <TaskFilterForm admin={admin} idKey="task_id" filters={filters} list={list} />
      <PagedTable
        label="异步任务列表"
        page={page}
        columns={asyncTaskColumns({ admin, now })}
        list={list}
        minWidth={admin ? 1250 : 1150}
        empty="没有符合条件的任务"
      />
    </Stack>
  );
}
