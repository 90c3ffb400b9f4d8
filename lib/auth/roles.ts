// Role tiers and the predicates every permission check goes through.

export const ROLE = { guest: 0, user: 1, admin: 10, root: 100 } as const;
export type RoleTier = "user" | "admin" | "root";
export const TIER_MIN_ROLE: Record<RoleTier, number> = { user: ROLE.user, admin: ROLE.admin, root: ROLE.root };

export const USER_STATUS = { enabled: 1, disabled: 2, special: 3 } as const;

/** Only an enabled account may sign in or act (banned and special ones may not). */
export const isActiveUser = (u: { status: number }) => u.status === USER_STATUS.enabled;

export const isAdmin = (u: { role: number }) => u.role >= ROLE.admin;
export const isRoot = (u: { role: number }) => u.role >= ROLE.root;
export const hasTier = (u: { role: number }, tier: RoleTier) => u.role >= TIER_MIN_ROLE[tier];

/** An actor may act on another user only when it outranks them. */
export const canManageUser = (actor: { role: number; id: number }, target: { role: number; id: number }) => actor.role > target.role;

/** An actor may give a role only below its own. */
export const canAssignRole = (actor: { role: number }, role: number) => role < actor.role;

export const VALID_ROLES = [ROLE.guest, ROLE.user, ROLE.admin, ROLE.root] as readonly number[];
