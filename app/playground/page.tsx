import { Playground } from "@/components/playground/playground";
import { pageUser } from "@/lib/auth/page-user";
import { listSelfGroups, listUserModels } from "@/lib/users/self";

// The playground (spec §2 Playground): the groups and each group's models come from the same lib/
// functions GET /api/user/self/groups and GET /api/user/models answer with; the chat itself goes
// through POST /pg/chat/completions from the browser.
export default async function PlaygroundPage() {
  const user = await pageUser();
  const groups = await listSelfGroups(user.group);
  const models = Object.fromEntries(await Promise.all(Object.keys(groups).map(async (g) => [g, await listUserModels(g)] as const)));
  return <Playground userId={user.id} ownGroup={user.group} groups={groups} models={models} />;
}
