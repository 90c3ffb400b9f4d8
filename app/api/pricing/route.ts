import { envelopeWith } from "@/lib/api/envelope";
import { route } from "@/lib/api/route";
import { listPricing } from "@/lib/billing/pricing";

export const GET = route({
  auth: "optional",
  handler: async ({ caller }) => {
    const { data, ...beside } = await listPricing(caller);
    return envelopeWith(data, beside);
  },
});
