// Who may do what to a user (spec §4 User actions, §6): pure, so manageUser enforces exactly the
// rule the user page uses to disable the buttons the server would refuse.
import { canAssignRole, canManageUser, isAdmin, isRoot, ROLE, USER_STATUS } from "@/lib/auth/roles";

export const USER_MSG = {
  notFound: "用户不存在",
  usernameTaken: "用户名已存在，或已注销",
  outranked: "无权更新同权限等级或更高权限等级的用户信息",
  outrankedRead: "无权获取同级或更高等级用户的信息",
  roleRootOnly: "只有超级管理员可以修改用户角色",
  roleTooHigh: "无权将其他用户权限等级提升到大于等于自己的权限等级",
  ownRole: "不能修改自己的角色",
  promoteRootOnly: "普通管理员用户无法提升其他用户为管理员",
  alreadyAdmin: "该用户已经是管理员",
  alreadyUser: "该用户已经是普通用户",
  rootDisable: "无法禁用超级管理员用户",
  rootDelete: "无法删除超级管理员用户",
  rootDemote: "无法降级超级管理员用户",
  specialStatus: "该用户状态特殊，无法启用",
  changedMeanwhile: "用户信息已被修改，请刷新后重试",
} as const;

export const USER_ACTIONS = ["promote", "demote", "disable", "enable", "delete"] as const;
export type UserAction = (typeof USER_ACTIONS)[number];

export type Actor = { id: number; role: number };
export type ManageTarget = { id: number; role: number; status: number };
export type Refusal = { message: string; status: 400 | 403 };

const ROOT_REFUSAL: Partial<Record<UserAction, string>> = {
  disable: USER_MSG.rootDisable,
  delete: USER_MSG.rootDelete,
  demote: USER_MSG.rootDemote,
};

const forbid = (message: string): Refusal => ({ message, status: 403 });

/** Why `actor` may not do `action` to an active (not deleted) `target`; null when it may. */
export function manageRefusal(actor: Actor, target: ManageTarget, action: UserAction): Refusal | null {
  if (isRoot(target)) return forbid(ROOT_REFUSAL[action] ?? USER_MSG.outranked);
  if (!canManageUser(actor, target)) return forbid(USER_MSG.outranked);
  switch (action) {
    case "promote":
      if (!isRoot(actor)) return forbid(USER_MSG.promoteRootOnly);
      if (isAdmin(target)) return { message: USER_MSG.alreadyAdmin, status: 400 };
      if (!canAssignRole(actor, ROLE.admin)) return forbid(USER_MSG.roleTooHigh);
      return null;
    case "demote":
      return isAdmin(target) ? null : { message: USER_MSG.alreadyUser, status: 400 };
    case "enable":
      return target.status === USER_STATUS.special ? { message: USER_MSG.specialStatus, status: 400 } : null;
    case "disable":
    case "delete":
      return null;
  }
}

/** Why `actor` may not edit `target` (root may edit itself); null when it may. */
export function editRefusal(actor: Actor, target: { id: number; role: number }): string | null {
  if (canManageUser(actor, target) || (isRoot(actor) && actor.id === target.id)) return null;
  return USER_MSG.outranked;
}
