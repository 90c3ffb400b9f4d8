import { cookies } from "next/headers";
import { ChannelList } from "@/components/channels/channel-list";
import { pageUser } from "@/lib/auth/page-user";
import { BALANCE_TYPES } from "@/lib/relay/probe/balance";
import { listChannels, searchChannels } from "@/lib/channels/query";
import { listGroups } from "@/lib/options/groups";
import { ID_SORT_COOKIE, listParams, PAGE_SIZE_COOKIE, param, type SearchParams } from "@/lib/ui/list-params";

// The channel page (spec §2 Channel management, admin): the list is rendered here from the same
// lib/ functions GET /api/channel/ and /api/channel/search call; the client list does the
// interaction through /api.
export default async function ChannelPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await pageUser("admin");
  const params = await searchParams;
  const jar = await cookies();
  const query = { ...listParams(params, jar.get(PAGE_SIZE_COOKIE)?.value), id_sort: jar.get(ID_SORT_COOKIE)?.value === "true" };
  const filters = { keyword: param(params, "keyword"), group: param(params, "group"), model: param(params, "model") };
  const [page, groups] = await Promise.all([
    filters.keyword || filters.group || filters.model ? searchChannels({ ...query, ...filters }) : listChannels(query),
    listGroups(),
  ]);
  return <ChannelList page={page} filters={filters} idSort={query.id_sort} groups={groups} balanceTypes={[...BALANCE_TYPES]} />;
}
