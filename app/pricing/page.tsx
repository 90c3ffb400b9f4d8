import { cookies } from "next/headers";
import { PricingTable } from "@/components/pricing/pricing-table";
import { optionalPageUser } from "@/lib/auth/page-user";
import { listPricing } from "@/lib/billing/pricing";
import { isPricingSort, viewPricing } from "@/lib/billing/pricing-view";
import { getOptions } from "@/lib/options";
import { listParams, PAGE_SIZE_COOKIE, param, type SearchParams } from "@/lib/ui/list-params";

// The pricing page (spec §2 Pricing page, §3 Pricing entry, §9), public: the table comes from the
// same listPricing GET /api/pricing answers with (visitors see the default group only); the group,
// search, sort and page live in the URL.
export default async function PricingPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const viewer = await optionalPageUser();
  const params = await searchParams;
  const paging = listParams(params, (await cookies()).get(PAGE_SIZE_COOKIE)?.value);
  const query = { group: param(params, "group"), keyword: param(params, "keyword"), sort: param(params, "sort") };
  const [list, options] = await Promise.all([listPricing(viewer), getOptions()]);
  const inCurrency = options.DisplayInCurrencyEnabled;
  const view = viewPricing(list, query, { inCurrency, ownGroup: viewer?.group, quotaPerUnit: options.QuotaPerUnit });
  const pages = Math.max(1, Math.ceil(view.rows.length / paging.page_size));
  const p = Math.min(paging.p, pages - 1);
  return (
    <PricingTable
      group={view.group}
      groups={view.groups}
      rows={view.rows.slice(p * paging.page_size, (p + 1) * paging.page_size)}
      total={view.rows.length}
      page={p}
      pageSize={paging.page_size}
      filters={{ keyword: query.keyword, sort: isPricingSort(query.sort) ? query.sort : "name" }}
      inCurrency={inCurrency}
      signedIn={viewer !== null}
    />
  );
}
