import { cookies } from "next/headers";
import { Stack } from "@mantine/core";
import { TopUpOrders } from "@/components/wallet/order-list";
import { Wallet } from "@/components/wallet/wallet";
import { pageUser } from "@/lib/auth/page-user";
import { getOptions } from "@/lib/options";
import { isOnlineTopUpEnabled, isStripeTopUpEnabled, minTopUpAmount } from "@/lib/payments/amount";
import { listOwnOrders } from "@/lib/payments/order-list";
import { WALLET_ORDERS_PREFIX } from "@/lib/payments/order-view";
import { findPaymentReturn, returnedTradeNo } from "@/lib/payments/return";
import { listParams, PAGE_SIZE_COOKIE, type SearchParams } from "@/lib/ui/list-params";
import { getSelf } from "@/lib/users/self";

// The wallet (spec §2 Wallet page, §5 Redeem and top-up): the visible balance from getSelf (what
// GET /api/user/self answers), the top-up options from the same rules GET /api/status uses, back
// from a gateway the state of the order named in the query (the user's own orders only), and the
// user's orders (充值记录) through listOwnOrders, what GET /api/user/topup/self answers.
export default async function TopUpPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const user = await pageUser();
  const query = await searchParams;
  const paging = listParams(query, (await cookies()).get(PAGE_SIZE_COOKIE)?.value, WALLET_ORDERS_PREFIX);
  const tradeNo = returnedTradeNo(query);
  const [self, options, orders, payment] = await Promise.all([
    getSelf(user.id),
    getOptions(),
    listOwnOrders(user.id, paging),
    tradeNo ? findPaymentReturn(user.id, tradeNo) : null,
  ]);
  return (
    <Stack gap="md">
      <Wallet
        balance={{ quota: self.quota, used_quota: self.used_quota, request_count: self.request_count }}
        topUpLink={options.TopUpLink}
        online={{ enabled: isOnlineTopUpEnabled(options), stripe: isStripeTopUpEnabled(options), min: minTopUpAmount(options) }}
        payment={payment}
      />
      <TopUpOrders page={orders} />
    </Stack>
  );
}
