import { SettingsTabs } from "@/components/settings/settings-tabs";
import { pageUser } from "@/lib/auth/page-user";
import { otherTabValues } from "@/components/settings/other/fields";
import { isRoot } from "@/lib/auth/roles";
import { getOptions, listOptions } from "@/lib/options";
import { getAffCode } from "@/lib/users/aff";
import { getSelf, listUserModels } from "@/lib/users/self";
import { param, type SearchParams } from "@/lib/ui/list-params";

// Settings (spec §2 Settings): tabs chosen by ?tab=. The personal tab for everyone, its data from
// the same lib/ functions as GET /api/user/self, /api/user/models and /api/user/aff (the invite
// code is created here on first ask, as that call does); root's tabs load theirs only when open.
export default async function SettingPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const user = await pageUser();
  const tab = param(await searchParams, "tab");
  const [self, models, affCode, options] = await Promise.all([
    getSelf(user.id),
    listUserModels(user.group),
    getAffCode(user.id),
    getOptions(),
  ]);
  // The root tabs' values come from listOptions (GET /api/option/), which never lists a secret.
  const other = isRoot(user) && tab === "other" ? otherTabValues(await listOptions()) : undefined;
  return (
    <SettingsTabs requestedTab={tab} self={self} models={models} affCode={affCode} serverAddress={options.ServerAddress} other={other} />
  );
}
