"use client";
// What the user list does (spec §4 User actions): promote, demote, enable, disable and delete
// through POST /api/user/manage, the row taking the role and status the server answered until the
// re-rendered page arrives; and which drawer the path opens (/user/edit add, /user/edit/{id} edit).
import { usePathname, useSearchParams } from "next/navigation";
import { type Dispatch, type SetStateAction, useEffect, useState } from "react";
import type { ConfirmOptions } from "@/components/data/confirm";
import type { ListUrl } from "@/components/data/use-list-url";
import { type RowAction, useRowAction } from "@/components/data/use-row-action";
import { api } from "@/lib/client/api";
import type { Page } from "@/lib/db/paging";
import { USER_FORM_MSG } from "@/lib/users/form";
import type { UserAction } from "@/lib/users/manage-rules";
import type { UserView } from "@/lib/users/view";

export const USER_LIST_MSG = {
  searchPlaceholder: "支持搜索用户的 ID、用户名、显示名称和邮箱地址 ...",
  deleteTitle: "确定是否要注销此用户？",
  deleteBody: "相当于删除用户，此修改将不可逆",
  promoteTitle: "确定要提升此用户吗？",
  promoteBody: "此操作将提升用户的权限级别为管理员",
  demoteTitle: "确定要降级此用户吗？",
  demoteBody: "此操作将降低用户的权限级别为普通用户",
} as const;

/** What is asked before an action; enable and disable are not asked. */
const ASK: Partial<Record<UserAction, ConfirmOptions>> = {
  delete: { title: USER_LIST_MSG.deleteTitle, message: USER_LIST_MSG.deleteBody, confirmLabel: "注销", danger: true },
  promote: { title: USER_LIST_MSG.promoteTitle, message: USER_LIST_MSG.promoteBody, confirmLabel: "提升" },
  demote: { title: USER_LIST_MSG.demoteTitle, message: USER_LIST_MSG.demoteBody, confirmLabel: "降级" },
};

type Override = { role: number; status: number; deleted?: boolean };
type Answer = { role: number; status: number };

function useManage(action: UserAction, list: ListUrl, setOverrides: Dispatch<SetStateAction<Record<number, Override>>>) {
  return useRowAction(
    USER_FORM_MSG.done,
    ASK[action] ?? null,
    (u: UserView) => api<Answer>("POST", "/api/user/manage", { id: u.id, action }),
    (u, data) => {
      setOverrides((all) => ({ ...all, [u.id]: { role: data.role, status: data.status, deleted: action === "delete" } }));
      list.refresh();
    },
  );
}

export function useUserActions(page: Page<UserView>, list: ListUrl) {
  // What the server answered to an action, shown until the re-rendered page arrives.
  const [overrides, setOverrides] = useState<Record<number, Override>>({});
  // biome-ignore lint/correctness/useExhaustiveDependencies: a fresh page from the server replaces the answers
  useEffect(() => setOverrides({}), [page]);

  const manage: Record<UserAction, RowAction<UserView>> = {
    promote: useManage("promote", list, setOverrides),
    demote: useManage("demote", list, setOverrides),
    disable: useManage("disable", list, setOverrides),
    enable: useManage("enable", list, setOverrides),
    delete: useManage("delete", list, setOverrides),
  };

  const items = page.items.map((u) => {
    const o = overrides[u.id];
    if (!o) return u;
    return { ...u, role: o.role, status: o.status, DeletedAt: o.deleted ? new Date().toISOString() : u.DeletedAt };
  });

  return { rows: { ...page, items }, manage };
}

export type UserActions = ReturnType<typeof useUserActions>;

const LIST_PATH = "/user";
const EDIT_PATH = "/user/edit";

/** Which drawer the path opens: none, add (/user/edit) or edit (/user/edit/{id}). */
function drawerOf(pathname: string): { id?: number } | null {
  const path = pathname.replace(/\/+$/, "");
  if (path === EDIT_PATH) return {};
  const match = /^\/user\/edit\/(\d+)$/.exec(path);
  return match ? { id: Number(match[1]) } : null;
}

/** The drawer the path names, and moving between the list and its drawers (query kept). */
export function useUserDrawer() {
  const pathname = usePathname();
  const search = useSearchParams();
  const go = (path: string) => {
    const query = search.toString();
    window.history.pushState(null, "", query ? `${path}?${query}` : path);
  };
  return {
    drawer: drawerOf(pathname),
    openNew: () => go(EDIT_PATH),
    openEdit: (id: number) => go(`${EDIT_PATH}/${id}`),
    close: () => go(LIST_PATH),
  };
}
