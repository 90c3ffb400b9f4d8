import { cookies } from "next/headers";
import { AsyncTaskList } from "@/components/tasks/async-task-list";
import { pageUser } from "@/lib/auth/page-user";
import { isAdmin } from "@/lib/auth/roles";
import { nowSeconds } from "@/lib/db/num";
import { ASYNC_TASK_FILTER_KEYS, asyncTaskFiltersOf, listAsyncTasks } from "@/lib/tasks/query";
import { validTimeZone } from "@/lib/ui/format";
import { listParams, PAGE_SIZE_COOKIE, param, type SearchParams } from "@/lib/ui/list-params";
import { TIME_ZONE_COOKIE } from "@/lib/ui/time-zone";

// Async tasks (spec §2 Task page: Suno, and video): rows rendered here through listAsyncTasks, the
// function GET /api/task/ and /api/task/self call, with the filters from the URL so a view can be
// shared; admins read everyone's rows, users their own. The default range starts at midnight in
// the viewer's zone.
export default async function TaskPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const user = await pageUser();
  const admin = isAdmin(user);
  const params = await searchParams;
  const jar = await cookies();
  const paging = listParams(params, jar.get(PAGE_SIZE_COOKIE)?.value);
  const zone = validTimeZone(jar.get(TIME_ZONE_COOKIE)?.value);
  const filters = asyncTaskFiltersOf((key) => param(params, key), admin, nowSeconds(), zone);
  const page = await listAsyncTasks({ ...filters, ...paging, userId: admin ? undefined : user.id });
  // A new set of filters in the URL (a search, reset, back) starts the form over from them.
  const formKey = ASYNC_TASK_FILTER_KEYS.map((key) => param(params, key)).join("\n");
  return <AsyncTaskList key={formKey} admin={admin} page={page} filters={filters} now={Date.now()} />;
}
