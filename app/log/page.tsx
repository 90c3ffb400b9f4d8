import { cookies } from "next/headers";
import { LogList, type LogRow } from "@/components/logs/log-list";
import { pageUser } from "@/lib/auth/page-user";
import { isAdmin } from "@/lib/auth/roles";
import { nowSeconds } from "@/lib/db/num";
import { getLogStat, getUserLogStat, type LogQuery, listLogs, listUserLogs } from "@/lib/logs/query";
import { logFiltersOf } from "@/lib/logs/range";
import { listParams, PAGE_SIZE_COOKIE, param, type SearchParams } from "@/lib/ui/list-params";
import { validTimeZone } from "@/lib/ui/format";
import { TIME_ZONE_COOKIE } from "@/lib/ui/time-zone";

// The usage log (spec §2 Log page): rows and the summary badges are rendered here through the
// lib/ functions GET /api/log/ and /api/log/self/ (and their /stat) call, with the filters from
// the URL, so a view can be shared; admins read everyone's rows, users their own.
const FILTER_KEYS = ["type", "token_name", "model_name", "start_timestamp", "end_timestamp", "username", "channel"] as const;

export default async function LogPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const user = await pageUser();
  const admin = isAdmin(user);
  const params = await searchParams;
  const jar = await cookies();
  const paging = listParams(params, jar.get(PAGE_SIZE_COOKIE)?.value);
  const filters = logFiltersOf((key) => param(params, key), admin, nowSeconds(), validTimeZone(jar.get(TIME_ZONE_COOKIE)?.value));
  const query: LogQuery = { ...filters, ...paging };
  // A new set of filters in the URL (a search, reset, back) starts the form over from them.
  const formKey = FILTER_KEYS.map((key) => param(params, key)).join("\n");
  if (admin) {
    const [page, stat] = await Promise.all([listLogs(query), getLogStat(query)]);
    return <LogList key={formKey} admin page={page} stat={stat} filters={filters} />;
  }
  const [page, stat] = await Promise.all([listUserLogs(user.id, query), getUserLogStat(user.id, query)]);
  // Self rows carry no id (spec); the table keys them by their place in the list.
  const items: LogRow[] = page.items.map((item, i) => ({ ...item, id: page.page * page.page_size + i, channel: 0 }));
  return <LogList key={formKey} admin={false} page={{ ...page, items }} stat={stat} filters={filters} />;
}
