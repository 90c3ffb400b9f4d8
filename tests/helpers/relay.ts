// Starts the relay the two ways Qiao serves it, on loopback: the Node entry `npm start` uses
// (serveRelayNode, exactly as server.ts calls it) and the Next route handlers (app/v1/[...path],
// app/v1beta/[...path]), driven with the web Request Next would build. Tests run the same cases against both.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { getDb } from "@/lib/db";
import { serveRelayNode } from "@/lib/relay/doors/node";
import { clientIpHeaders } from "@/lib/net/client-ip";
import * as v1Route from "@/app/v1/[...path]/route";
import * as v1betaRoute from "@/app/v1beta/[...path]/route";
import * as pgRoute from "@/app/pg/chat/completions/route";
import { createChannels } from "@/lib/channels/manage";
import { ROLE } from "@/lib/auth/roles";
import { createToken } from "@/lib/tokens/manage";
import { resetRelayState } from "@/lib/relay/memory/key-user-channel-cache";
import { publishInvalidation } from "@/lib/cache/bus";
import { getLedger } from "@/lib/relay/memory/runtime";
import { processSingleton } from "@/lib/singleton";

export type Entry = "node" | "web";
export const ENTRIES: Entry[] = ["node", "web"];

export type RelayServer = { url: string; port: number; close(): Promise<void> };

/** `clientIp`: the address the entry's front vouches for (null: none, as under a bare `next start`). */
export async function startRelay(entry: Entry, clientIp: string | null = "127.0.0.1"): Promise<RelayServer> {
  await getDb();
  const server = http.createServer((req, res) => {
    if (entry === "node") {
      void serveRelayNode(req, res, clientIp ?? "unknown");
      return;
    }
    void viaRouteHandler(req, res, clientIp);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function viaRouteHandler(req: http.IncomingMessage, res: http.ServerResponse, clientIp: string | null) {
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
  if (clientIp !== null) for (const [name, value] of Object.entries(clientIpHeaders(clientIp))) headers.set(name, value);
  const method = req.method ?? "GET";
  // The body streams from the socket, as Next hands it to a route handler (the Node request itself).
  const request = new Request(`http://127.0.0.1${req.url}`, {
    method,
    headers,
    body: method === "GET" || method === "HEAD" ? undefined : (req as unknown as BodyInit),
    duplex: "half",
    signal: controller.signal,
  } as RequestInit);
  const path = (req.url ?? "").split("?")[0];
  const routeModule = path.startsWith("/v1beta/") ? v1betaRoute : v1Route;
  const handler =
    path === "/pg/chat/completions" ? pgRoute.POST : (routeModule as unknown as Record<string, (r: Request) => Promise<Response>>)[method];
  const response = await handler!(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (controller.signal.aborted) {
        await reader.cancel();
        break;
      }
      res.write(value);
    }
  } catch {
    /* client gone */
  } finally {
    res.end();
  }
}

let seq = 0;

/** Seeded channels are root's: their loopback mock upstreams are never refused. */
const ROOT_ACTOR = { role: ROLE.root };
/** Seeding is audited as root's, from loopback, as any channel creation is. */
const ROOT_AUDIT = { actor: { id: 1, username: "root" }, ip: "127.0.0.1" };

/** A user with a balance and an sk- key, plus helpers to read their money back. */
export async function seedUser(o: { quota?: number; role?: number; group?: string; token?: Record<string, unknown> } = {}) {
  const db = await getDb();
  const user = await db.user.create({
    data: {
      username: `relay${Date.now().toString(36)}${++seq}`,
      password: "x",
      quota: BigInt(o.quota ?? 10_000_000),
      role: o.role ?? 1,
      group: o.group ?? "default",
    },
  });
  const token = await createToken({ id: user.id, group: user.group }, {
    name: `key${seq}`,
    remain_quota: 0,
    expired_time: -1,
    unlimited_quota: true,
    model_limits_enabled: false,
    model_limits: "",
    allow_ips: "",
    group: "",
    ...o.token,
  } as never);
  return {
    id: user.id,
    username: user.username,
    key: token.key as string,
    tokenId: token.id as number,
    async quota() {
      return (await db.user.findUniqueOrThrow({ where: { id: user.id } })).quota;
    },
  };
}

export async function seedChannel(fields: {
  base_url: string;
  models: string;
  type?: number;
  name?: string;
  priority?: number;
  weight?: number;
  group?: string;
  key?: string;
  model_mapping?: string;
  status_code_mapping?: string;
  output_limits?: string;
  other?: string;
  auto_ban?: number;
  multi_key_mode?: string;
}) {
  const [channel] = await createChannels(
    {
      mode: "single",
      type: 1,
      name: `ch${++seq}`,
      key: "sk-upstream-key",
      group: "default",
      priority: 0,
      weight: 0,
      ...fields,
    } as never,
    ROOT_ACTOR,
    ROOT_AUDIT,
  );
  return channel!;
}

/**
 * A row of a type the relay does not serve (the API refuses to create one): saved as OpenAI, then
 * its type set directly, as a row from before the registry or an imported database would be.
 */
export async function seedNotRelayedChannel(type: number, fields: Parameters<typeof seedChannel>[0]) {
  const channel = await seedChannel({ ...fields, type: 1 });
  await (await getDb()).channel.update({ where: { id: channel.id }, data: { type } });
  publishInvalidation({ kind: "channels" });
  return { ...channel, type };
}

/** Writes pending usage and returns every hold, so balances and logs are final. */
export async function settleAll() {
  const ledger = await getLedger();
  await ledger.close();
  // A closed ledger is replaced by a fresh one on next use.
  processSingleton<{ ledger: unknown }>("relayRuntime", () => ({ ledger: null })).ledger = null;
}

export async function clearRelayData() {
  const db = await getDb();
  await db.ability.deleteMany();
  await db.channel.deleteMany();
  publishInvalidation({ kind: "channels" });
  resetRelayState();
}
