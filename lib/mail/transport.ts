// Outgoing e-mail over the SMTP options (spec §9: port 587 by default, SSL forced on 465). The
// caller passes the options it read for this send (lib/mail/mailer.ts reads them every time), so
// a change saved in the console applies to the next mail; the transport is rebuilt only when they
// changed. Takes no other module of the app, so a relay worker can import it lazily.
import nodemailer from "nodemailer";
import type SMTPTransport from "nodemailer/lib/smtp-transport";
import { ApiError } from "@/lib/errors";
import type { OptionValues } from "@/lib/options";
import { processSingleton } from "@/lib/singleton";
import { componentLogger } from "@/lib/log";

const log = componentLogger("mail");

export const SMTP_NOT_CONFIGURED = "SMTP 服务器未配置";
export const MAIL_SEND_FAILED = "邮件发送失败，请检查 SMTP 配置或稍后重试";

type SmtpOptions = Pick<
  OptionValues,
  "SMTPServer" | "SMTPPort" | "SMTPSSLEnabled" | "SMTPAccount" | "SMTPFrom" | "SMTPToken" | "SystemName"
>;

/**
 * The transport for the options: implicit TLS on port 465 or when SSLEnabled, else a plain
 * connection upgraded with STARTTLS when the server offers it. Certificates are verified (the
 * reference skipped that; a mail server with a self-signed certificate needs a proper one here).
 */
export function smtpTransportOptions(o: SmtpOptions): SMTPTransport.Options {
  const port = o.SMTPPort || 587;
  return {
    host: o.SMTPServer,
    port,
    secure: port === 465 || o.SMTPSSLEnabled,
    auth: o.SMTPAccount ? { user: o.SMTPAccount, pass: o.SMTPToken } : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  };
}

/** `SystemName <SMTPFrom>`; SMTPFrom defaults to the account. */
export function mailFrom(o: SmtpOptions): { name: string; address: string } {
  return { name: o.SystemName, address: o.SMTPFrom || o.SMTPAccount };
}

export function smtpConfigured(o: Pick<OptionValues, "SMTPServer">): boolean {
  return o.SMTPServer.trim() !== "";
}

type Cached = { signature: string; transport: nodemailer.Transporter<SMTPTransport.SentMessageInfo> };
const slot = processSingleton<{ cached?: Cached }>("mailTransport", () => ({}));

function transportFor(o: SmtpOptions) {
  const options = smtpTransportOptions(o);
  const signature = JSON.stringify([options.host, options.port, options.secure, o.SMTPAccount, o.SMTPToken]);
  if (slot.cached?.signature !== signature) {
    slot.cached?.transport.close();
    slot.cached = { signature, transport: nodemailer.createTransport(options) };
  }
  return slot.cached.transport;
}

export type Mail = { to: string; subject: string; html: string };

/** Sends one mail with these options; throws an ApiError (400 unconfigured, 502 refused: the envelope's message). */
export async function deliverMail(o: SmtpOptions, mail: Mail): Promise<void> {
  if (!smtpConfigured(o)) throw new ApiError(SMTP_NOT_CONFIGURED, 400);
  try {
    await transportFor(o).sendMail({ from: mailFrom(o), to: mail.to, subject: mail.subject, html: mail.html });
  } catch (error) {
    log.error({ err: error }, "sending failed");
    throw new ApiError(MAIL_SEND_FAILED, 502);
  }
}
