import { getOptions } from "@/lib/options";

/** `GET /api/group/`: the group names, i.e. the keys of GroupRatio. */
export async function listGroups(): Promise<string[]> {
  return Object.keys((await getOptions()).GroupRatio);
}
