import { SettingsTabs } from "@/components/settings/settings-tabs";
import { pageUser } from "@/lib/auth/page-user";
import { getOptions } from "@/lib/options";
import { getAffCode } from "@/lib/users/aff";
import { getSelf, listUserModels } from "@/lib/users/self";
import { param, type SearchParams } from "@/lib/ui/list-params";

// Settings (spec §2 Settings): tabs chosen by ?tab=. Only the personal tab exists so far; the
// super admin's operation, system and other tabs are not built yet, so none is offered. The data
// comes from the same lib/ functions as GET /api/user/self, /api/user/models and /api/user/aff
// (the invite code is created here on first ask, as that call does).
export default async function SettingPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const user = await pageUser();
  const tab = param(await searchParams, "tab");
  const [self, models, affCode, options] = await Promise.all([
    getSelf(user.id),
    listUserModels(user.group),
    getAffCode(user.id),
    getOptions(),
  ]);
  return <SettingsTabs requestedTab={tab} self={self} models={models} affCode={affCode} serverAddress={options.ServerAddress} />;
}
