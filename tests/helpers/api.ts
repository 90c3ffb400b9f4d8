// Calls route handlers the way Next does: a web Request in, a Response out.
import bcrypt from "bcryptjs";
import { getDb } from "@/lib/db";
import { encodeSession } from "@/lib/auth/session";
import { createSessionRow } from "@/lib/auth/sessions";
import { clientIpHeaders } from "@/lib/net/client-ip";
import { usernameColumns } from "@/lib/users/username";

type Handler = (req: Request, ctx?: { params?: Promise<Record<string, string>> }) => Promise<Response>;

export type CallOptions = {
  body?: unknown;
  cookie?: string;
  /** Value of New-Api-User; defaults to the session's user when `as` is given. */
  userHeader?: string | null;
  as?: { id: number; cookie: string };
  headers?: Record<string, string>;
  params?: Record<string, string>;
  /** The address a relay worker vouches for, as under `npm start`; null sends none. */
  ip?: string | null;
};

export async function call(handler: Handler, method: string, path: string, o: CallOptions = {}) {
  const headers = new Headers();
  if (o.ip !== null) for (const [name, value] of Object.entries(clientIpHeaders(o.ip ?? "127.0.0.1"))) headers.set(name, value);
  for (const [name, value] of Object.entries(o.headers ?? {})) headers.set(name, value);
  const cookie = o.as?.cookie ?? o.cookie;
  if (cookie) headers.set("cookie", cookie);
  const userHeader = o.userHeader === undefined ? (o.as ? String(o.as.id) : null) : o.userHeader;
  if (userHeader !== null) headers.set("new-api-user", userHeader);
  let body: string | undefined;
  if (o.body !== undefined) {
    body = typeof o.body === "string" ? o.body : JSON.stringify(o.body);
    headers.set("content-type", "application/json");
  }
  const res = await handler(new Request(`http://localhost${path}`, { method, headers, body }), {
    params: Promise.resolve(o.params ?? {}),
  });
  const text = await res.text();
  let json: { success: boolean; message: string; data?: any } | undefined;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json: json!, text, headers: res.headers };
}

/** A user row with a known password, and a session cookie for it. */
export async function createUser(fields: {
  username: string;
  password?: string;
  role?: number;
  status?: number;
  group?: string;
  quota?: number;
}) {
  const db = await getDb();
  const user = await db.user.create({
    data: {
      ...usernameColumns(fields.username),
      display_name: fields.username,
      password: await bcrypt.hash(fields.password ?? "password123", 4),
      role: fields.role ?? 1,
      status: fields.status ?? 1,
      group: fields.group ?? "default",
      quota: BigInt(fields.quota ?? 0),
    },
  });
  return { id: user.id, username: user.username, cookie: await sessionCookieFor(user.id) };
}

export async function sessionCookieFor(id: number) {
  const db = await getDb();
  const u = await db.user.findUniqueOrThrow({ where: { id } });
  const jti = await createSessionRow(new Headers({ "user-agent": "qiao-tests" }), u.id, "password");
  return `qiao_session=${await encodeSession({ id: u.id, username: u.username, role: u.role, ver: u.auth_version, jti })}`;
}

export function cookieFrom(setCookie: string | null): string {
  return (setCookie ?? "").split(";")[0]!;
}
