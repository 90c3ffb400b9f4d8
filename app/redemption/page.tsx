import { cookies } from "next/headers";
import { RedemptionList } from "@/components/redemptions/redemption-list";
import { pageUser } from "@/lib/auth/page-user";
import { listRedemptions, searchRedemptions } from "@/lib/redemptions/manage";
import { listParams, PAGE_SIZE_COOKIE, param, type SearchParams } from "@/lib/ui/list-params";

// The redemption page (spec §2 Redemption page, admin): the list is rendered here from the same
// lib/ functions GET /api/redemption/ and /api/redemption/search call; the client list does the
// interaction through /api.
export default async function RedemptionPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await pageUser("admin");
  const params = await searchParams;
  const paging = listParams(params, (await cookies()).get(PAGE_SIZE_COOKIE)?.value);
  const keyword = param(params, "keyword");
  const page = keyword ? await searchRedemptions({ ...paging, keyword }) : await listRedemptions(paging);
  return <RedemptionList page={page} keyword={keyword} />;
}
