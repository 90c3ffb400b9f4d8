// Where console pages may post forms besides themselves (the CSP's form-action, lib/ui/csp.ts):
// the EPay gateway, which the wallet sends the user to with a posted form (spec §2/§7). Every
// console page carries it, not only /topup: a page reached by client-side navigation keeps the
// policy of the document it was first loaded as.
import { getOptions, type OptionValues } from "@/lib/options";
import { isOnlineTopUpEnabled } from "@/lib/payments/amount";

/** The gateway's origin while EPay is configured (e.g. "https://pay.example.com"), else nothing. */
export function gatewayFormTargets(o: Pick<OptionValues, "PayAddress" | "EpayId" | "EpayKey">): string[] {
  if (!isOnlineTopUpEnabled(o)) return [];
  try {
    const url = new URL(o.PayAddress);
    return url.protocol === "https:" || url.protocol === "http:" ? [url.origin] : [];
  } catch {
    return [];
  }
}

/** gatewayFormTargets of the current options; nothing when they cannot be read (the page still renders). */
export async function pageFormTargets(): Promise<string[]> {
  try {
    return gatewayFormTargets(await getOptions());
  } catch {
    return [];
  }
}
