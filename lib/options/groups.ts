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
  const entries = Object.entries(o.UserUsableGroups as Record<string, string>);
  if (!entries.some(([group]) => group === userGroup)) entries.push([userGroup, OWN_GROUP_LABEL]);
  // fromEntries defines each key as an own property, so a group called `__proto__` is a key like
  // any other (an assignment would set the prototype instead). A plain object still: pages hand it
  // to client components, which take no null-prototype objects.
  return Object.fromEntries(entries);
}
