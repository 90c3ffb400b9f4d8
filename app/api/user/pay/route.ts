import { envelopeWith } from "@/lib/api/envelope";
import { route } from "@/lib/api/route";
import { startEpayPayment } from "@/lib/payments/pay";
import { epayPaySchema } from "@/lib/payments/schemas";

/** Spec §7: `{ message: "success", data: <the form's fields>, url: <the gateway> }`; the wallet posts the form. */
export const POST = route({
  auth: "user",
  body: epayPaySchema,
  handler: async ({ caller, body }) => {
    const start = await startEpayPayment(caller, body.amount, body.payment_method);
    return envelopeWith(start.params, { url: start.url }, "success");
  },
});
