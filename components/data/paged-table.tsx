"use client";
// The one paged table of the console (spec §7 Paging, §9): rows from the server component, p from 0
// in the URL, page sizes 10/20/50/100 remembered in local storage (and a cookie for the server
// render), optional row selection, dimmed rows, and explicit empty and loading states. On a phone
// each row is a card: every value under its column's title, the row's actions (the column keyed
// "actions") wrapped along the card's foot, so none is off screen (issue 20.20).
import { Box, Checkbox, Group, LoadingOverlay, Pagination, Paper, Select, Stack, Table, Text } from "@mantine/core";
import { useMediaQuery } from "@mantine/hooks";
import type { CSSProperties, ReactNode } from "react";
import classes from "@/components/data/paged-table.module.css";
import type { ListUrl } from "@/components/data/use-list-url";
import { writePageSize } from "@/lib/client/storage";
import type { Page } from "@/lib/db/paging";
import { PAGE_SIZES } from "@/lib/ui/list-params";

export type Column<T> = {
  key: string;
  title: ReactNode;
  render: (row: T) => ReactNode;
  width?: number | string;
  align?: "left" | "center" | "right";
};

export type Selection = { selected: number[]; onChange: (ids: number[]) => void };

// Greyed by text colour, not opacity: the dimmed colour still reads at 4.5:1 (components/theme.ts),
// and badges and buttons (启用 on a disabled channel) keep their own colours. Rows and cards alike.
const dimStyle: CSSProperties = { color: "var(--mantine-color-dimmed)" };

/** The column whose cell holds the row's buttons: a card's foot on a phone. */
const ACTIONS_KEY = "actions";

type Props<T extends { id: number }> = {
  /** The rows and where they stand, as the list routes answer them. */
  page: Page<T>;
  columns: Column<T>[];
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
  const { columns, list, selection } = props;
  const { items: rows, total, page, page_size: pageSize } = props.page;
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const ids = rows.map((r) => r.id);
  const chosen = new Set(selection?.selected ?? []);
  const allChosen = ids.length > 0 && ids.every((id) => chosen.has(id));
  const someChosen = ids.some((id) => chosen.has(id));
  const width = props.minWidth ?? 720;
  const narrow = useMediaQuery("(max-width: 48em)");

  const toggleAll = () => selection?.onChange(allChosen ? [] : ids);
  const toggle = (id: number) => selection?.onChange(chosen.has(id) ? [...chosen].filter((x) => x !== id) : [...chosen, id]);
  const span = columns.length + (selection ? 1 : 0);

  return (
    <Box pos="relative">
      <LoadingOverlay visible={list.pending} zIndex={5} overlayProps={{ blur: 1 }} loaderProps={{ size: "sm" }} />
      {narrow ? (
        <RowCards {...props} chosen={chosen} allChosen={allChosen} someChosen={someChosen} toggleAll={toggleAll} toggle={toggle} />
      ) : (
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
      )}
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

type CardProps<T extends { id: number }> = Props<T> & {
  chosen: Set<number>;
  allChosen: boolean;
  someChosen: boolean;
  toggleAll: () => void;
  toggle: (id: number) => void;
};

/** The rows as cards, for a phone: title and value on a line each, the actions at the foot. */
function RowCards<T extends { id: number }>(props: CardProps<T>) {
  const { columns, selection, chosen } = props;
  const rows = props.page.items;
  const actions = columns.find((c) => c.key === ACTIONS_KEY);
  const fields = columns.filter((c) => c !== actions);
  return (
    <Stack gap="sm">
      {selection && rows.length > 0 && (
        <Checkbox label="全选" checked={props.allChosen} indeterminate={props.someChosen && !props.allChosen} onChange={props.toggleAll} />
      )}
      {rows.length === 0 && (
        <Text c="dimmed" ta="center" py="lg">
          {props.empty ?? "暂无数据"}
        </Text>
      )}
      <Stack gap="sm" role="list" aria-label={props.label}>
        {rows.map((row) => {
          const more = props.expanded?.(row);
          const foot = actions?.render(row);
          return (
            <Paper key={row.id} withBorder p="sm" role="listitem" data-row-id={row.id} style={props.dimmed?.(row) ? dimStyle : undefined}>
              <Stack gap={6}>
                {selection && <Checkbox aria-label={`选择 ${row.id}`} checked={chosen.has(row.id)} onChange={() => props.toggle(row.id)} />}
                {fields.map((c) => {
                  const value = c.render(row);
                  // An empty cell is a blank line on a card: left out.
                  if (value === "" || value === null || value === undefined || value === false) return null;
                  return (
                    <Group key={c.key} justify="space-between" align="center" gap="xs" wrap="nowrap" className={classes.field}>
                      {c.title ? (
                        <Text size="sm" c="dimmed" className={classes.title}>
                          {c.title}
                        </Text>
                      ) : null}
                      <Box className={classes.value}>{value}</Box>
                    </Group>
                  );
                })}
                {foot ? <Box className={classes.actions}>{foot}</Box> : null}
                {more ? <Box>{more}</Box> : null}
              </Stack>
            </Paper>
          );
        })}
      </Stack>
    </Stack>
  );
}
