// The user management page (spec §2 manage users), rendered on the server from the same lib/
// functions GET /api/user/ and /api/user/search call. /user, /user/edit and /user/edit/{id} all
// render it; the client list opens the add or edit drawer from the path.
import { cookies } from "next/headers";
import { UserList } from "@/components/users/user-list";
import { pageUser } from "@/lib/auth/page-user";
import { listGroups } from "@/lib/options/groups";
import { listParams, PAGE_SIZE_COOKIE, param, type SearchParams } from "@/lib/ui/list-params";
import { listUsers, searchUsers } from "@/lib/users/admin";

export async function UsersPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const viewer = await pageUser("admin");
  const params = await searchParams;
  const paging = listParams(params, (await cookies()).get(PAGE_SIZE_COOKIE)?.value);
  const keyword = param(params, "keyword");
  const group = param(params, "group");
  const [page, groups] = await Promise.all([
    keyword || group ? searchUsers({ ...paging, keyword, group }) : listUsers(paging),
    listGroups(),
  ]);
  return <UserList page={page} filters={{ keyword, group }} groups={groups} viewer={{ id: viewer.id, role: viewer.role }} />;
}
