import { SettingsTabs } from "@/components/settings/settings-tabs";
import { pageUser } from "@/lib/auth/page-user";
import { isRoot } from "@/lib/auth/roles";
import { getOptions, listOptions } from "@/lib/options";
import { operationValues } from "@/lib/options/operation";
import { getAffCode } from "@/lib/users/aff";
import { getSelf, listUserModels } from "@/lib/users/self";
import { param, type SearchParams } from "@/lib/ui/list-params";

// Settings (spec §2 Settings): tabs chosen by ?tab=. The personal tab, and for the super admin the
// operation tab (its options loaded only when it is the one asked for). The data
// comes from the same lib/ functions as GET /api/user/self, /api/user/models and /api/user/aff
// (the invite code is created here on first ask, as that call does).
export default async function SettingPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const user = await pageUser();
  const tab = param(await searchParams, "tab");
  const [self, models, affCode, options, optionList] = await Promise.all([
    getSelf(user.id),
    listUserModels(user.group),
    getAffCode(user.id),
    getOptions(),
    // The operation tab's options: the list GET /api/option/ answers (no secrets), its keys only.
    isRoot(user) && tab === "operation" ? listOptions() : null,
  ]);
  return (
    <SettingsTabs
      requestedTab={tab}
      operation={optionList && operationValues(optionList)}
      self={self}
      models={models}
      affCode={affCode}
      serverAddress={options.ServerAddress}
    />
  );
}
