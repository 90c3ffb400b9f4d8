import { SettingsTabs } from "@/components/settings/settings-tabs";
import { isRoot } from "@/lib/auth/roles";
import { pageUser } from "@/lib/auth/page-user";
import { getOptions, listOptions } from "@/lib/options";
import { getAffCode } from "@/lib/users/aff";
import { getSelf, listUserModels } from "@/lib/users/self";
import { param, type SearchParams } from "@/lib/ui/list-params";

// Settings (spec §2 Settings): tabs chosen by ?tab=. The personal tab for everyone; the super
// admin's operation tab reads the options as GET /api/option/ gives them (listOptions: secrets
// left out), only when it is the tab shown. The system and other tabs are not built yet. The
// personal data comes from the same lib/ functions as GET /api/user/self, /api/user/models and
// /api/user/aff (the invite code is created here on first ask, as that call does).
export default async function SettingPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const user = await pageUser();
  const tab = param(await searchParams, "tab");
  const [self, models, affCode, options, operation] = await Promise.all([
    getSelf(user.id),
    listUserModels(user.group),
    getAffCode(user.id),
    getOptions(),
    tab === "operation" && isRoot(user) ? listOptions() : null,
  ]);
  return (
    <SettingsTabs
      requestedTab={tab}
      self={self}
      models={models}
      affCode={affCode}
      serverAddress={options.ServerAddress}
      operationOptions={operation && Object.fromEntries(operation.map((o) => [o.key, o.value]))}
    />
  );
}
