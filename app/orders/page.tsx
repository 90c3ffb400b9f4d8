import { cookies } from "next/headers";
import { OrderList } from "@/components/orders/order-list";
import { pageUser } from "@/lib/auth/page-user";
import { listOrders, ORDER_FILTER_KEYS, orderFiltersOf } from "@/lib/payments/order-list";
import { listParams, PAGE_SIZE_COOKIE, param, type SearchParams } from "@/lib/ui/list-params";

// Top-up orders (admin): rows rendered here through listOrders, the function GET /api/user/topup
// calls, with the filters from the URL so a view can be shared.
export default async function OrdersPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const user = await pageUser("admin");
  const params = await searchParams;
  const paging = listParams(params, (await cookies()).get(PAGE_SIZE_COOKIE)?.value);
  const filters = orderFiltersOf((key) => param(params, key));
  const page = await listOrders({ ...paging, ...filters });
  // A new set of filters in the URL (a search, reset, back) starts the form over from them.
  const formKey = ORDER_FILTER_KEYS.map((key) => param(params, key)).join("\n");
  return <OrderList key={formKey} page={page} filters={filters} viewer={{ id: user.id, role: user.role }} />;
}
