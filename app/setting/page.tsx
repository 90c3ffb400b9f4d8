import { SettingsTabs } from "@/components/settings/settings-tabs";
import { pageUser } from "@/lib/auth/page-user";
import { isRoot } from "@/lib/auth/roles";
import { getOptions, listOptions } from "@/lib/options";
import { getAffCode } from "@/lib/users/aff";
import { getSelf, listUserModels } from "@/lib/users/self";
import { param, type SearchParams } from "@/lib/ui/list-params";

// Settings (spec §2 Settings): tabs chosen by ?tab=. The personal tab's data comes from the same
// lib/ functions as GET /api/user/self, /api/user/models and /api/user/aff (the invite code is
// created here on first ask, as that call does); root's system tab from GET /api/option/'s
// (secrets only as set or not), loaded only when that tab is open.
export default async function SettingPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const user = await pageUser();
  const tab = param(await searchParams, "tab");
  const [self, models, affCode, options, systemOptions] = await Promise.all([
    getSelf(user.id),
    listUserModels(user.group),
    getAffCode(user.id),
    getOptions(),
    isRoot(user) && tab === "system" ? listOptions() : null,
  ]);
  return (
    <SettingsTabs
      requestedTab={tab}
      self={self}
      models={models}
      affCode={affCode}
      serverAddress={options.ServerAddress}
      systemOptions={systemOptions}
    />
  );
}
