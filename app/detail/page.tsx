import { DataDashboard } from "@/components/detail/data-dashboard";
import { isApiError } from "@/lib/errors";
import { pageUser } from "@/lib/auth/page-user";
import { isAdmin } from "@/lib/auth/roles";
import { listQuotaData, listUserQuotaData, parseDataQuery, type QuotaDataItem } from "@/lib/data/query";
import { nowSeconds } from "@/lib/db/num";
import { getOptions } from "@/lib/options";
import { param, type SearchParams } from "@/lib/ui/list-params";
import { defaultRange, type Granularity, isGranularity } from "@/lib/ui/usage-series";

// The data dashboard (spec §2 /detail): the usage buckets of the range in the URL, read here through
// the same lib/ functions GET /api/data/ (admin: everyone, or one username) and /api/data/self/
// call, summed into charts by the client. The range defaults to DataExportDefaultTime's span.
export default async function DetailPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const user = await pageUser();
  const admin = isAdmin(user);
  const params = await searchParams;
  const options = await getOptions();
  const fallback = isGranularity(options.DataExportDefaultTime) ? options.DataExportDefaultTime : "hour";
  const asked = param(params, "granularity");
  const granularity: Granularity = isGranularity(asked) ? asked : fallback;
  const range = defaultRange(granularity, nowSeconds());
  const start = param(params, "start_timestamp") || String(range.start);
  const end = param(params, "end_timestamp") || String(range.end);
  const username = admin ? param(params, "username") : "";
  const byUser = admin && param(params, "by") === "user";
  let rows: QuotaDataItem[] = [];
  let error = "";
  let query = { start_timestamp: range.start, end_timestamp: range.end };
  try {
    const q = parseDataQuery({ start_timestamp: start, end_timestamp: end, username });
    query = q;
    rows = admin ? await listQuotaData(q, byUser ? "user" : "model") : await listUserQuotaData(user.id, q);
  } catch (e) {
    if (!isApiError(e)) throw e;
    error = e.message;
  }
  return (
    <DataDashboard
      rows={rows}
      start={query.start_timestamp}
      end={query.end_timestamp}
      granularity={granularity}
      admin={admin}
      enabled={options.DataExportEnabled}
      error={error}
      username={username}
      byUser={byUser}
    />
  );
}
