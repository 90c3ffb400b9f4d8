"use client";
// The /midjourney page's interactive part: the callback-off notice (admins), the filters (in the
// URL) and the table of drawing tasks.
import { Alert, Stack, Title } from "@mantine/core";
import { PagedTable } from "@/components/data/paged-table";
import { useListUrl } from "@/components/data/use-list-url";
import { drawingColumns } from "@/components/tasks/drawing-columns";
import { TaskFilterForm } from "@/components/tasks/task-filters";
import type { Page } from "@/lib/db/paging";
import type { DrawingFilters, DrawingItem } from "@/lib/tasks/query";

export const MJ_NOTIFY_OFF_NOTICE = "当前未开启Midjourney回调，部分项目可能无法获得绘图结果，可在运营设置中开启。";

type Props = {
  admin: boolean;
  page: Page<DrawingItem>;
  filters: DrawingFilters;
  /** When the rows were read (Unix ms): a running task's spend time counts to here. */
  now: number;
  /** MjNotifyEnabled is off (told to admins only). */
  notifyOff: boolean;
};

export function DrawingList({ admin, page, filters, now, notifyOff }: Props) {
  const list = useListUrl();
  return (
    <Stack gap="md">
      <Title order={3}>绘图日志</Title>
      {admin && notifyOff && (
        <Alert color="blue" variant="light">
          {MJ_NOTIFY_OFF_NOTICE}
        </Alert>
      )}
      <TaskFilterForm admin={admin} idKey="mj_id" filters={filters} list={list} />
      <PagedTable
        label="绘图任务列表"
        page={page}
        columns={drawingColumns({ admin, now })}
        list={list}
        minWidth={admin ? 1400 : 1300}
        empty="没有符合条件的绘图任务"
      />
    </Stack>
  );
}
