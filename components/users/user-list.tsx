"use client";
// The user management page's interactive part (spec §2 manage users, §4 User actions): keyword and
// group search, add, the table and its row actions. Rows come from the server component; actions go
// through /api, the row takes the role and status the server answered, then the list re-renders.
// The drawers follow the path: /user/edit opens the add drawer, /user/edit/{id} the edit drawer.
import { Badge, Button, Group, Select, Stack, Text, TextInput, Title, Tooltip } from "@mantine/core";
import { usePathname, useSearchParams } from "next/navigation";
import { type ReactNode, useEffect, useState } from "react";
import { confirmAction } from "@/components/data/confirm";
import { QuotaText } from "@/components/data/display";
import { type Column, PagedTable } from "@/components/data/paged-table";
import { useListUrl } from "@/components/data/use-list-url";
import { Icon } from "@/components/icons";
import { UserAddDrawer } from "@/components/users/user-add-drawer";
import { UserEditDrawer } from "@/components/users/user-edit-drawer";
import { UserRole, UserStatus } from "@/components/users/user-badges";
import { USER_STATUS } from "@/lib/auth/roles";
import { api } from "@/lib/client/api";
import { showSuccess } from "@/lib/client/notify";
import { USER_FORM_MSG } from "@/lib/users/form";
import { type Actor, editRefusal, manageRefusal, type UserAction } from "@/lib/users/manage-rules";
import type { UserView } from "@/lib/users/view";

export type UserPageData = { items: UserView[]; page: number; page_size: number; total: number };

type Props = {
  page: UserPageData;
  filters: { keyword: string; group: string };
  groups: string[];
  viewer: Actor;
};

export const USER_LIST_MSG = {
  searchPlaceholder: "支持搜索用户的 ID、用户名、显示名称和邮箱地址 ...",
  deleteTitle: "确定是否要注销此用户？",
  deleteBody: "相当于删除用户，此修改将不可逆",
  promoteTitle: "确定要提升此用户吗？",
  promoteBody: "此操作将提升用户的权限级别为管理员",
  demoteTitle: "确定要降级此用户吗？",
  demoteBody: "此操作将降低用户的权限级别为普通用户",
} as const;

const LIST_PATH = "/user";
const EDIT_PATH = "/user/edit";

/** Which drawer the path opens: none, add (/user/edit) or edit (/user/edit/{id}). */
function drawerOf(pathname: string): { id?: number } | null {
  const path = pathname.replace(/\/+$/, "");
  if (path === EDIT_PATH) return {};
  const match = /^\/user\/edit\/(\d+)$/.exec(path);
  return match ? { id: Number(match[1]) } : null;
}

type Override = { role: number; status: number; deleted?: boolean };

export function UserList({ page, filters, groups, viewer }: Props) {
  const list = useListUrl();
  const pathname = usePathname();
  const search = useSearchParams();
  const [keyword, setKeyword] = useState(filters.keyword);
  const [group, setGroup] = useState<string | null>(filters.group || null);
  const [busy, setBusy] = useState<string | null>(null);
  // What the server answered to an action, shown until the re-rendered page arrives.
  const [overrides, setOverrides] = useState<Record<number, Override>>({});
  // biome-ignore lint/correctness/useExhaustiveDependencies: a fresh page from the server replaces the answers
  useEffect(() => setOverrides({}), [page]);

  const drawer = drawerOf(pathname);
  const go = (path: string) => {
    const query = search.toString();
    window.history.pushState(null, "", query ? `${path}?${query}` : path);
  };
  const closeDrawer = () => go(LIST_PATH);

  const submitSearch = (event: React.FormEvent) => {
    event.preventDefault();
    list.update({ keyword, group });
  };

  const rows = page.items.map((u) => {
    const o = overrides[u.id];
    if (!o) return u;
    return { ...u, role: o.role, status: o.status, DeletedAt: o.deleted ? new Date().toISOString() : u.DeletedAt };
  });

  const act = async (u: UserView, action: UserAction) => {
    const ask =
      action === "delete"
        ? { title: USER_LIST_MSG.deleteTitle, message: USER_LIST_MSG.deleteBody, confirmLabel: "注销", danger: true }
        : action === "promote"
          ? { title: USER_LIST_MSG.promoteTitle, message: USER_LIST_MSG.promoteBody, confirmLabel: "提升" }
          : action === "demote"
            ? { title: USER_LIST_MSG.demoteTitle, message: USER_LIST_MSG.demoteBody, confirmLabel: "降级" }
            : null;
    if (ask && !(await confirmAction(ask))) return;
    setBusy(`${u.id}:${action}`);
    const res = await api<{ role: number; status: number }>("POST", "/api/user/manage", { id: u.id, action });
    setBusy(null);
    if (!res.success) return;
    showSuccess(USER_FORM_MSG.done);
    setOverrides((all) => ({ ...all, [u.id]: { role: res.data.role, status: res.data.status, deleted: action === "delete" } }));
    list.refresh();
  };

  const actionButton = (u: UserView, action: UserAction, label: string, color: string) => {
    const refusal = manageRefusal(viewer, u, action);
    return (
      <RowButton
        key={action}
        label={label}
        color={color}
        reason={refusal?.message}
        loading={busy === `${u.id}:${action}`}
        onClick={() => act(u, action)}
      />
    );
  };

  const columns: Column<UserView>[] = [
    { key: "id", title: "ID", render: (u) => u.id, width: 64 },
    {
      key: "username",
      title: "用户名",
      render: (u) => (
        <div>
          <Text size="sm" fw={500}>
            {u.username}
          </Text>
          {u.display_name && u.display_name !== u.username && (
            <Text size="xs" c="dimmed">
              {u.display_name}
            </Text>
          )}
        </div>
      ),
    },
    {
      key: "group",
      title: "分组",
      render: (u) => (
        <Badge variant="outline" color="gray" tt="none">
          {u.group}
        </Badge>
      ),
    },
    {
      key: "quota",
      title: "剩余额度 / 已用额度",
      render: (u) => (
        <div>
          <Text size="sm" c={u.quota < 0 ? "red" : undefined}>
            剩余 <QuotaText quota={u.quota} />
          </Text>
          <Text size="xs" c="dimmed">
            已用 <QuotaText quota={u.used_quota} />
          </Text>
        </div>
      ),
    },
    { key: "requests", title: "请求次数", render: (u) => u.request_count, align: "right" },
    { key: "role", title: "角色", render: (u) => <UserRole role={u.role} /> },
    { key: "status", title: "状态", render: (u) => <UserStatus status={u.status} deleted={u.DeletedAt !== null} /> },
    {
      key: "actions",
      title: "操作",
      render: (u) => {
        if (u.DeletedAt !== null) return null;
        const editBlocked = editRefusal(viewer, u);
        return (
          <Group gap={4} wrap="nowrap">
            {actionButton(u, "promote", "提升", "blue")}
            {actionButton(u, "demote", "降级", "grape")}
            {u.status === USER_STATUS.enabled ? actionButton(u, "disable", "禁用", "orange") : actionButton(u, "enable", "启用", "green")}
            {actionButton(u, "delete", "注销", "red")}
            <RowButton label="编辑" color="gray" reason={editBlocked ?? undefined} onClick={() => go(`${EDIT_PATH}/${u.id}`)} />
          </Group>
        );
      },
    },
  ];

  const groupOptions = [...new Set([...groups, ...(filters.group ? [filters.group] : [])])];

  return (
    <Stack gap="md">
      <Title order={3}>用户管理</Title>
      <form onSubmit={submitSearch}>
        <Group gap="xs" align="flex-end" wrap="wrap">
          <TextInput
            aria-label="搜索用户"
            placeholder={USER_LIST_MSG.searchPlaceholder}
            value={keyword}
            onChange={(e) => setKeyword(e.currentTarget.value)}
            leftSection={<Icon name="search" size={16} />}
            style={{ flex: "2 1 240px" }}
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
          <Button type="submit" variant="light" loading={list.pending}>
            查询
          </Button>
        </Group>
      </form>
      <Group gap="xs">
        <Button leftSection={<Icon name="plus" size={16} />} onClick={() => go(EDIT_PATH)}>
          添加用户
        </Button>
      </Group>
      <PagedTable
        label="用户列表"
        rows={rows}
        columns={columns}
        total={page.total}
        page={page.page}
        pageSize={page.page_size}
        list={list}
        dimmed={(u) => u.DeletedAt !== null}
        minWidth={1040}
        empty="没有找到符合条件的用户"
      />
      <UserAddDrawer
        opened={drawer !== null && drawer.id === undefined}
        onClose={closeDrawer}
        onSaved={() => {
          closeDrawer();
          list.refresh();
        }}
      />
      <UserEditDrawer
        id={drawer?.id ?? null}
        groups={groups}
        onClose={closeDrawer}
        onSaved={() => {
          closeDrawer();
          list.refresh();
        }}
      />
    </Stack>
  );
}

/** A row action; when the server would refuse it, disabled with the reason as its tooltip. */
function RowButton(props: { label: string; color: string; reason?: string; loading?: boolean; onClick: () => void }): ReactNode {
  const button = (
    <Button size="compact-sm" variant="light" color={props.color} disabled={!!props.reason} loading={props.loading} onClick={props.onClick}>
      {props.label}
    </Button>
  );
  if (!props.reason) return button;
  return (
    <Tooltip label={props.reason} withArrow multiline maw={240}>
      <span>{button}</span>
    </Tooltip>
  );
}
