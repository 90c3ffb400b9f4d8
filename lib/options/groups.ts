import { getOptions, type OptionValues } from "@/lib/options";

/** `GET /api/group/`: the group names, i.e. the keys of GroupRatio. */
export async function listGroups(): Promise<string[]> {
  return Object.keys((await getOptions()).GroupRatio);
}

/** The label of a user's own group when UserUsableGroups does not list it. */
export const OWN_GROUP_LABEL = "用户分组";

/**
 * The groups a user of `userGroup` may choose (for a key, in the playground, on the pricing page),
 * as group → label: UserUsableGroups plus their own group.
 */
export function usableGroups(userGroup: string, o: Pick<OptionValues, "UserUsableGroups">): Record<string, string> {
  // Without a prototype, a group called `__proto__` is a key like any other (on a plain object
  // the assignment below would be dropped), and nothing inherited reads as a group.
  const groups: Record<string, string> = Object.assign(Object.create(null), o.UserUsableGroups);
  if (!Object.hasOwn(groups, userGroup)) groups[userGroup] = OWN_GROUP_LABEL;
  return groups;
}
