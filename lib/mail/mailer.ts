// The console's way to send a mail: the SMTP options as they are now, then lib/mail/transport.ts.
import { getOptions } from "@/lib/options";
import { deliverMail, type Mail } from "@/lib/mail/transport";

export { MAIL_SEND_FAILED, SMTP_NOT_CONFIGURED, smtpTransportOptions, type Mail } from "@/lib/mail/transport";

/** Sends one mail with the SMTP options read now; throws the envelope's ApiError when it cannot. */
export async function sendMail(mail: Mail): Promise<void> {
  await deliverMail(await getOptions(), mail);
}
