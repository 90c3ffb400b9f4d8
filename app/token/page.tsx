import { cookies } from "next/headers";
import { TokenList } from "@/components/tokens/token-list";
import { pageUser } from "@/lib/auth/page-user";
import { getOptions } from "@/lib/options";
import { listTokens, searchTokens } from "@/lib/tokens/manage";
import { listSelfGroups, listUserModels } from "@/lib/users/self";
import { listParams, PAGE_SIZE_COOKIE, param, type SearchParams } from "@/lib/ui/list-params";
import { legacyChatLinks } from "@/lib/ui/chat-link";
import { parseChats } from "@/lib/ui/menu";

// The token page (spec §2 Token page): the list is rendered here from the same lib/ functions
// GET /api/token/ and /api/token/search call; the client list does the interaction through /api.
export default async function TokenPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const user = await pageUser();
  const params = await searchParams;
  const paging = listParams(params, (await cookies()).get(PAGE_SIZE_COOKIE)?.value);
  const keyword = param(params, "keyword");
  const token = param(params, "token");
  const owner = { id: user.id, group: user.group };
  const [page, options, groups, models] = await Promise.all([
    keyword || token ? searchTokens(owner, { ...paging, keyword, token }) : listTokens(owner, paging),
    getOptions(),
    listSelfGroups(user.group),
    listUserModels(user.group),
  ]);
  return (
    <TokenList
      page={page}
      filters={{ keyword, token }}
      chats={parseChats(options.Chats as Array<Record<string, string>>)}
      legacyChats={legacyChatLinks(options.ChatLink, options.ChatLink2)}
      serverAddress={options.ServerAddress}
      groups={groups}
      groupsOffered={Object.keys(options.UserUsableGroups as Record<string, string>).length > 0}
      models={models}
    />
  );
}
