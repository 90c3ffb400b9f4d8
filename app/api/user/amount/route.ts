import { route } from "@/lib/api/route";
import { quoteTopUp } from "@/lib/payments/amount";
import { topUpAmountSchema } from "@/lib/payments/schemas";

export const POST = route({ auth: "user", body: topUpAmountSchema, handler: ({ caller, body }) => quoteTopUp(caller, body.amount) });
