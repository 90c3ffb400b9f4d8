import { epayNotifyResponse } from "@/lib/payments/epay-notify";

/** The EPay gateway's payment notification (inventory §4.3): plain text `success` or `fail`, by GET or a POSTed form. */
export const GET = epayNotifyResponse;
export const POST = epayNotifyResponse;
