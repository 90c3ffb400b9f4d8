import { Wallet } from "@/components/wallet/wallet";
import { pageUser } from "@/lib/auth/page-user";
import { getOptions } from "@/lib/options";
import { isOnlineTopUpEnabled, isStripeTopUpEnabled, minTopUpAmount } from "@/lib/payments/amount";
import { getSelf } from "@/lib/users/self";

// The wallet (spec §2 Wallet page, §5 Redeem and top-up): the visible balance from getSelf (what
// GET /api/user/self answers), and the top-up options from the same rules GET /api/status uses.
export default async function TopUpPage() {
  const user = await pageUser();
  const [self, options] = await Promise.all([getSelf(user.id), getOptions()]);
  return (
    <Wallet
      balance={{ quota: self.quota, used_quota: self.used_quota, request_count: self.request_count }}
      topUpLink={options.TopUpLink}
      online={{ enabled: isOnlineTopUpEnabled(options), stripe: isStripeTopUpEnabled(options), min: minTopUpAmount(options) }}
    />
  );
}
