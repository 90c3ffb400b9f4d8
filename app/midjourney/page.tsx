import { cookies } from "next/headers";
import { DrawingList } from "@/components/tasks/drawing-list";
import { pageUser } from "@/lib/auth/page-user";
import { isAdmin } from "@/lib/auth/roles";
import { nowSeconds } from "@/lib/db/num";
import { getOptions } from "@/lib/options";
import { DRAWING_FILTER_KEYS, drawingFiltersOf, listDrawingTasks } from "@/lib/tasks/query";
import { listParams, PAGE_SIZE_COOKIE, param, type SearchParams } from "@/lib/ui/list-params";

// Drawing tasks (spec §2 "Drawing (midjourney) page"): rows rendered here through listDrawingTasks, the function
// GET /api/mj/ and /api/mj/self/ call, with the filters from the URL so a view can be shared;
// admins read everyone's rows, users their own.
export default async function MidjourneyPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const user = await pageUser();
  const admin = isAdmin(user);
  const params = await searchParams;
  const paging = listParams(params, (await cookies()).get(PAGE_SIZE_COOKIE)?.value);
  const filters = drawingFiltersOf((key) => param(params, key), admin, nowSeconds());
  const page = await listDrawingTasks({ ...filters, ...paging, userId: admin ? undefined : user.id });
  const notifyOff = admin && !(await getOptions()).MjNotifyEnabled;
  // A new set of filters in the URL (a search, reset, back) starts the form over from them.
  const formKey = DRAWING_FILTER_KEYS.map((key) => param(params, key)).join("\n");
  return <DrawingList key={formKey} admin={admin} page={page} filters={filters} now={Date.now()} notifyOff={notifyOff} />;
}
