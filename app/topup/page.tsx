import { Wallet } from "@/components/wallet/wallet";
import { pageUser } from "@/lib/auth/page-user";
import { getOptions } from "@/lib/options";
import { isOnlineTopUpEnabled, isStripeTopUpEnabled, minTopUpAmount } from "@/lib/payments/amount";
import { findPaymentReturn, returnedTradeNo } from "@/lib/payments/return";
import { getSelf } from "@/lib/users/self";

// The wallet (spec §2 Wallet page, §5 Redeem and top-up): the visible balance from getSelf (what
// GET /api/user/self answers), the top-up options from the same rules GET /api/status uses, and,
// back from a gateway, the state of the order named in the query (the user's own orders only).
export default async function TopUpPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const user = await pageUser();
  const tradeNo = returnedTradeNo(await searchParams);
  const [self, options, payment] = await Promise.all([
    getSelf(user.id),
    getOptions(),
    tradeNo ? findPaymentReturn(user.id, tradeNo) : null,
  ]);
  return (
    <Wallet
      balance={{ quota: self.quota, used_quota: self.used_quota, request_count: self.request_count }}
      topUpLink={options.TopUpLink}
      online={{ enabled: isOnlineTopUpEnabled(options), stripe: isStripeTopUpEnabled(options), min: minTopUpAmount(options) }}
      payment={payment}
    />
  );
}
