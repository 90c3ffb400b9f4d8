"use client";
// The one paged table of the console (spec §7 Paging, §9): rows from the server component, p from 0
// in the URL, page sizes 10/20/50/100 remembered in local storage (and a cookie for the server
// render), optional row selection, dimmed rows, and explicit empty and loading states.
import { Box, Checkbox, Group, LoadingOverlay, Pagination, Select, Table, Text } from "@mantine/core";
import type { CSSProperties, ReactNode } from "react";
import type { ListUrl } from "@/components/data/use-list-url";
import { writePageSize } from "@/lib/client/storage";
import { PAGE_SIZES } from "@/lib/ui/list-params";

export type Column<T> = {
  key: string;
  title: ReactNode;
  render: (row: T) => ReactNode;
  width?: number | string;
  align?: "left" | "center" | "right";
};

export type Selection = { selected: number[]; onChange: (ids: number[]) => void };

type Props<T extends { id: number }> = {
  rows: T[];
  columns: Column<T>[];
  total: number;
  page: number;
  pageSize: number;
  list: ListUrl;
  selection?: Selection;
  /** Rows drawn greyed (e.g. channels that are not enabled). */
  dimmed?: (row: T) => boolean;
  /** Content under a row, shown when the row is expanded. */
  expanded?: (row: T) => ReactNode | null;
  empty?: ReactNode;
  /** Below this width the table scrolls sideways instead of squeezing columns. */
  minWidth?: number;
  label: string;
};

const SIZE_OPTIONS = PAGE_SIZES.map((n) => ({ value: String(n), label: `${n} 条/页` }));

export function PagedTable<T extends { id: number }>(props: Props<T>) {
  const { rows, columns, total, page, pageSize, list, selection } = props;
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const ids = rows.map((r) => r.id);
  const chosen = new Set(selection?.selected ?? []);
  const allChosen = ids.length > 0 && ids.every((id) => chosen.has(id));
  const someChosen = ids.some((id) => chosen.has(id));
  const width = props.minWidth ?? 720;

  const toggleAll = () => selection?.onChange(allChosen ? [] : ids);
  const toggle = (id: number) => selection?.onChange(chosen.has(id) ? [...chosen].filter((x) => x !== id) : [...chosen, id]);
  // Greyed by text colour, not opacity: the dimmed colour still reads at 4.5:1 (components/theme.ts),
  // and badges and buttons (启用 on a disabled channel) keep their own colours.
  const dimStyle: CSSProperties = { color: "var(--mantine-color-dimmed)" };
  const span = columns.length + (selection ? 1 : 0);

  return (
    <Box pos="relative">
      <LoadingOverlay visible={list.pending} zIndex={5} overlayProps={{ blur: 1 }} loaderProps={{ size: "sm" }} />
      <Table.ScrollContainer minWidth={width} type="native">
        <Table striped highlightOnHover verticalSpacing="xs" aria-label={props.label}>
          <Table.Thead>
            <Table.Tr>
              {selection && (
                <Table.Th w={40}>
                  <Checkbox aria-label="全选" checked={allChosen} indeterminate={someChosen && !allChosen} onChange={toggleAll} />
                </Table.Th>
              )}
              {columns.map((c) => (
                <Table.Th key={c.key} w={c.width} ta={c.align}>
                  {c.title}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.length === 0 && (
              <Table.Tr>
                <Table.Td colSpan={span}>
                  <Text c="dimmed" ta="center" py="lg">
                    {props.empty ?? "暂无数据"}
                  </Text>
                </Table.Td>
              </Table.Tr>
            )}
            {rows.map((row) => {
              const more = props.expanded?.(row);
              return [
                <Table.Tr key={row.id} style={props.dimmed?.(row) ? dimStyle : undefined} data-row-id={row.id}>
                  {selection && (
                    <Table.Td>
                      <Checkbox aria-label={`选择 ${row.id}`} checked={chosen.has(row.id)} onChange={() => toggle(row.id)} />
                    </Table.Td>
                  )}
                  {columns.map((c) => (
                    <Table.Td key={c.key} ta={c.align}>
                      {c.render(row)}
                    </Table.Td>
                  ))}
                </Table.Tr>,
                more ? (
                  <Table.Tr key={`${row.id}-more`}>
                    <Table.Td colSpan={span}>{more}</Table.Td>
                  </Table.Tr>
                ) : null,
              ];
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Group justify="space-between" mt="sm" gap="xs">
        <Text size="sm" c="dimmed">
          共 {total} 条
        </Text>
        <Group gap="xs">
          <Pagination
            total={pages}
            value={Math.min(page + 1, pages)}
            onChange={(n) => list.update({ p: n - 1 })}
            size="sm"
            siblings={1}
            boundaries={1}
            getControlProps={(control) => ({ "aria-label": { first: "首页", last: "末页", next: "下一页", previous: "上一页" }[control] })}
          />
          <Select
            aria-label="每页条数"
            data={SIZE_OPTIONS}
            value={String(pageSize)}
            onChange={(v) => {
              if (!v) return;
              writePageSize(Number(v));
              list.update({ size: v });
            }}
            allowDeselect={false}
            size="xs"
            w={110}
            comboboxProps={{ withinPortal: true }}
          />
        </Group>
      </Group>
    </Box>
  );
}
