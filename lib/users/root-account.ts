import type { Db } from "@/lib/db/types";
import { nowSeconds } from "@/lib/db/num";
import { hashPassword, verifyPassword } from "@/lib/auth/password";
import { ROLE } from "@/lib/auth/roles";
import { usernameColumns } from "@/lib/users/username";

export const DEFAULT_ROOT = { username: "root", password: "123456" } as const;

/** On an empty users table, creates root / 123456 (role 100). Safe when instances race. */
export async function ensureRootUser(db: Db): Promise<void> {
  if ((await db.user.count()) > 0) return;
  try {
    await db.user.create({
      data: {
        ...usernameColumns(DEFAULT_ROOT.username),
        display_name: "Root User",
        password: await hashPassword(DEFAULT_ROOT.password),
        role: ROLE.root,
        status: 1,
        quota: 100_000_000n,
        created_time: nowSeconds(),
      },
    });
  } catch (error) {
    // A unique-constraint failure means another instance created root first.
    if ((await db.user.count({ where: { username: DEFAULT_ROOT.username } })) === 0) throw error;
  }
}

/** True while root still has the well-known default password. */
export async function rootUsesDefaultPassword(db: Db): Promise<boolean> {
  const root = await db.user.findFirst({
    where: { username: DEFAULT_ROOT.username, role: { gte: ROLE.root }, deleted_at: null },
    select: { password: true },
  });
  return !!root && (await verifyPassword(DEFAULT_ROOT.password, root.password));
}
