"use client";
// The user management page's interactive part (spec §2 manage users, §4 User actions): keyword and
// group search, add, the table and its row actions. Rows come from the server component; actions go
// through /api, the row takes the role and status the server answered, then the list re-renders.
// The drawers follow the path: /user/edit opens the add drawer, /user/edit/{id} the edit drawer.
import { Select, Stack, Title } from "@mantine/core";
import { useState } from "react";
import { ListButtons, ListToolbar, SearchField } from "@/components/data/list-toolbar";
import { PagedTable } from "@/components/data/paged-table";
import { useListUrl } from "@/components/data/use-list-url";
import { USER_LIST_MSG, useUserActions, useUserDrawer } from "@/components/users/use-user-actions";
import { UserAddDrawer } from "@/components/users/user-add-drawer";
import { userColumns } from "@/components/users/user-columns";
import { UserEditDrawer } from "@/components/users/user-edit-drawer";
import type { Page } from "@/lib/db/paging";
import type { Actor } from "@/lib/users/manage-rules";
import type { UserView } from "@/lib/users/view";

type Props = {
  page: Page<UserView>;
  filters: { keyword: string; group: string };
  groups: string[];
  viewer: Actor;
};

export function UserList({ page, filters, groups, viewer }: Props) {
  const list = useListUrl();
  const { rows, manage } = useUserActions(page, list);
  const { drawer, openNew, openEdit, close } = useUserDrawer();
  const [keyword, setKeyword] = useState(filters.keyword);
  const [group, setGroup] = useState<string | null>(filters.group || null);
  const saved = () => {
    close();
    list.refresh();
  };

  const groupOptions = [...new Set([...groups, ...(filters.group ? [filters.group] : [])])];

  return (
    <Stack gap="md">
      <Title order={3}>用户管理</Title>
      <ListToolbar onSearch={() => list.update({ keyword, group })} pending={list.pending}>
        <SearchField
          label="搜索用户"
          placeholder={USER_LIST_MSG.searchPlaceholder}
          value={keyword}
          onChange={setKeyword}
          flex="2 1 240px"
        />
        <Select
          aria-label="分组"
          placeholder="选择分组"
          data={groupOptions}
          value={group}
          onChange={setGroup}
          clearable
          comboboxProps={{ withinPortal: true }}
          style={{ flex: "1 1 140px" }}
        />
      </ListToolbar>
      <ListButtons add="添加用户" onAdd={openNew} />
      <PagedTable
        label="用户列表"
        page={rows}
        columns={userColumns({ manage, viewer, onEdit: openEdit })}
        list={list}
        dimmed={(u) => u.DeletedAt !== null}
        minWidth={1040}
        empty="没有找到符合条件的用户"
      />
      <UserAddDrawer opened={drawer !== null && drawer.id === undefined} onClose={close} onSaved={saved} />
      <UserEditDrawer id={drawer?.id ?? null} groups={groups} viewer={viewer} onClose={close} onSaved={saved} />
    </Stack>
  );
}
