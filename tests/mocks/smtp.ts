// A real SMTP listener on loopback (the `smtp-server` package) for tests of everything that sends
// e-mail: it accepts any login, keeps every message it receives and decodes the parts tests read
// (recipients, the Subject and the text of a single-part HTML body).
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export type ReceivedMail = {
  from: string;
  to: string[];
  /** The decoded Subject header. */
  subject: string;
  /** The decoded body (HTML for the mails Qiao sends). */
  body: string;
  raw: string;
  /** The login the client used, if any. */
  user: string | null;
};

export type MockSmtp = {
  port: number;
  mails: ReceivedMail[];
  /** Resolves with the first mail to `to`, waiting up to `timeoutMs` for it. */
  waitFor: (to: string, timeoutMs?: number) => Promise<ReceivedMail>;
  /** The next login fails with 535 (a wrong SMTPToken). */
  refuseLogins: (refuse: boolean) => void;
  close: () => Promise<void>;
};

/** Decodes RFC 2047 encoded words (=?UTF-8?B?…?= and =?UTF-8?Q?…?=). */
export function decodeWords(text: string): string {
  return text.replace(/\s*=\?([^?]+)\?([bBqQ])\?([^?]*)\?=\s*/g, (_, _charset: string, kind: string, data: string) =>
    kind.toUpperCase() === "B"
      ? Buffer.from(data, "base64").toString("utf8")
      : Buffer.from(decodeQp(data.replace(/_/g, " ")), "latin1").toString("utf8"),
  );
}

/** Quoted-printable to bytes (as latin1 text). */
function decodeQp(text: string): string {
  return text.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

export function parseMail(raw: string): { subject: string; body: string; headers: Map<string, string> } {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
  const headers = new Map<string, string>();
  for (const line of head.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const encoding = (headers.get("content-transfer-encoding") ?? "").toLowerCase();
  let body = raw.slice(split + 4);
  if (encoding === "base64") body = Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  else if (encoding === "quoted-printable") body = Buffer.from(decodeQp(body), "latin1").toString("utf8");
  return { subject: decodeWords(headers.get("subject") ?? ""), body, headers };
}

export async function startMockSmtp(): Promise<MockSmtp> {
  const mails: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  let refuse = false;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (refuse) return callback(new Error("Invalid login"));
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const { subject, body } = parseMail(raw);
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          subject,
          body,
          raw,
          user: (session.user as string | undefined) ?? null,
        });
        for (const w of waiters) w();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;

  const waitFor = (to: string, timeoutMs = 10_000) =>
    new Promise<ReceivedMail>((resolve, reject) => {
      const find = () => mails.find((m) => m.to.includes(to));
      const found = find();
      if (found) return resolve(found);
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no mail to ${to} within ${timeoutMs} ms`));
      }, timeoutMs);
      const check = () => {
        const m = find();
        if (!m) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(m);
      };
      waiters.add(check);
    });

  return {
    port,
    mails,
    waitFor,
    refuseLogins: (r) => {
      refuse = r;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
