"use client";
// The rows above a console list: the search form (its fields, then 查询), the filter grid of the
// log pages (labelled fields, then 查询 and 重置) and the buttons row that starts with the add
// button. Each list gives its own fields and buttons; the layout is this one.
import { Button, Group, SimpleGrid, TextInput } from "@mantine/core";
import Link from "next/link";
import type { ReactNode } from "react";
import { Icon } from "@/components/icons";

/** The search form: the fields in a wrapping row, 查询 last (loading while the list re-renders). */
export function ListToolbar({ onSearch, pending, children }: { onSearch: () => void; pending: boolean; children: ReactNode }) {
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        onSearch();
      }}
    >
      <Group gap="xs" align="flex-end" wrap="wrap">
        {children}
        <Button type="submit" variant="light" loading={pending}>
          查询
        </Button>
      </Group>
    </form>
  );
}

/** The filter form of a log page: labelled fields in a grid of up to four columns, 查询 and 重置 last. */
export function FilterGrid(props: { onSearch: () => void; onReset: () => void; pending: boolean; children: ReactNode }) {
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        props.onSearch();
      }}
      aria-label="筛选"
    >
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="xs" verticalSpacing="xs">
        {props.children}
        <Group gap="xs" align="flex-end">
          <Button type="submit" loading={props.pending} leftSection={<Icon name="search" size={16} />}>
            查询
          </Button>
          <Button variant="default" onClick={props.onReset}>
            重置
          </Button>
        </Group>
      </SimpleGrid>
    </form>
  );
}

/** The free-text field every list's search starts with, a magnifier on its left. */
export function SearchField(props: { label: string; placeholder: string; value: string; onChange: (value: string) => void; flex: string }) {
  return (
    <TextInput
      aria-label={props.label}
      placeholder={props.placeholder}
      value={props.value}
      onChange={(e) => props.onChange(e.currentTarget.value)}
      leftSection={<Icon name="search" size={16} />}
      style={{ flex: props.flex }}
    />
  );
}

/** The buttons row: 添加… first (a link to its page, or opening its drawer), then the list's own. */
export function ListButtons(props: { add: string; href?: string; onAdd?: () => void; children?: ReactNode }) {
  const icon = <Icon name="plus" size={16} />;
  return (
    <Group gap="xs">
      {props.href ? (
        <Button component={Link} href={props.href} leftSection={icon}>
          {props.add}
        </Button>
      ) : (
        <Button leftSection={icon} onClick={props.onAdd}>
          {props.add}
        </Button>
      )}
      {props.children}
    </Group>
  );
}
