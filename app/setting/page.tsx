import { SettingsTabs } from "@/components/settings/settings-tabs";
import { otherTabValues } from "@/components/settings/other/fields";
import { pageUser } from "@/lib/auth/page-user";
import { isRoot } from "@/lib/auth/roles";
import { getOptions, listOptions } from "@/lib/options";
import { operationValues } from "@/lib/options/operation";
import { getAffCode } from "@/lib/users/aff";
import { getSelf, listUserModels, selfHasPassword } from "@/lib/users/self";
import { param, type SearchParams } from "@/lib/ui/list-params";

/** Root's tabs, which read the options as GET /api/option/ lists them (secrets only as set or not). */
const OPTION_TABS = new Set(["operation", "system", "other"]);

// Settings (spec §2 Settings): tabs chosen by ?tab=. The personal tab's data comes from the same
// lib/ functions as GET /api/user/self, /api/user/models and /api/user/aff (the invite code is
// created here on first ask, as that call does); root's tabs load the options only when open.
export default async function SettingPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const user = await pageUser();
  const tab = param(await searchParams, "tab");
  const [self, models, affCode, options, listed, hasPassword] = await Promise.all([
    getSelf(user.id),
    listUserModels(user.group),
    getAffCode(user.id),
    getOptions(),
    isRoot(user) && OPTION_TABS.has(tab) ? listOptions() : null,
    selfHasPassword(user.id),
  ]);
  return (
    <SettingsTabs
      requestedTab={tab}
      self={self}
      models={models}
      affCode={affCode}
      serverAddress={options.ServerAddress}
      hasPassword={hasPassword}
      operation={tab === "operation" && listed ? operationValues(listed) : null}
      systemOptions={tab === "system" ? listed : null}
      other={tab === "other" && listed ? otherTabValues(listed) : undefined}
    />
  );
}
