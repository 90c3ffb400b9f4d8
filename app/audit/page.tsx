import { cookies } from "next/headers";
import { AuditList } from "@/components/audit/audit-list";
import { pageUser } from "@/lib/auth/page-user";
import { AUDIT_FILTER_KEYS, auditFiltersOf, listAuditLogs } from "@/lib/audit/read";
import { listParams, PAGE_SIZE_COOKIE, param, type SearchParams } from "@/lib/ui/list-params";

// The audit trail (root): rows rendered here through listAuditLogs, the function GET /api/audit/
// calls, with the filters from the URL so a view can be shared.
export default async function AuditPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await pageUser("root");
  const params = await searchParams;
  const paging = listParams(params, (await cookies()).get(PAGE_SIZE_COOKIE)?.value);
  const filters = auditFiltersOf((key) => param(params, key));
  const page = await listAuditLogs({ ...paging, ...filters });
  // A new set of filters in the URL (a search, reset, back) starts the form over from them.
  const formKey = AUDIT_FILTER_KEYS.map((key) => param(params, key)).join("\n");
  return <AuditList key={formKey} page={page} filters={filters} />;
}
