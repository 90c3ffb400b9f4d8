// Cache-bus events between instances, through Redis pub/sub (REDIS_CONN_STRING): every kind (a
// channel, key, user or option changed; a breaker opened or closed), so a change made on one
// instance reaches the caches of every other within the publish's round trip. Each process of
// each instance publishes what it publishes locally and delivers what other instances published.
// The processes of one `npm start` share an origin (QIAO_INSTANCE_ID, set by the primary): they
// already hear each other over IPC (lib/server/ipc.ts), so their own instance's messages are skipped.
// Redis down: events stay within the instance until it is back (said once in the log; /readyz
// says so too, lib/server/health.ts); other instances then see a change within SYNC_FREQUENCY,
// when they reload their caches, and once it is back each process reloads them at once. Nothing
// waits on Redis.
import { randomBytes } from "node:crypto";
import { addRemotePublisher, deliverLocally, type CacheEvent } from "@/lib/cache/bus";
import { env } from "@/lib/env";
import { processSingleton } from "@/lib/singleton";
import { componentLogger } from "@/lib/log";

const log = componentLogger("cache");

/**
 * The bus's pub/sub channel for the Redis database `url` selects. Redis delivers a publish to every
 * subscriber of the server, whatever database each selected: deployments that share one Redis on
 * different databases would otherwise open each other's breakers and reload on each other's changes.
 */
export function busChannel(url: string): string {
  let db = 0;
  try {
    db = Number(new URL(url).pathname.slice(1)) || 0;
  } catch {}
  return `qiao:bus:${db}`;
}
const RETRY_MAX_MS = 5_000;

type Client = Awaited<ReturnType<typeof connect>>;

async function connect(url: string, onDown: (error: unknown) => void) {
  const { createClient } = await import("redis");
  const client = createClient({
    url,
    socket: { connectTimeout: 3000, reconnectStrategy: (retries) => Math.min(RETRY_MAX_MS, 50 * 2 ** retries) },
  });
  client.on("error", onDown);
  client.on("ready", () => onUp());
  await client.connect();
  client.unref();
  return client;
}

let outage = false;
function onUp() {
  if (!outage) return;
  outage = false;
  log.info("Redis bus is back: changes and breaker states are shared with the other instances again");
  // What the other instances published meanwhile never arrived: reload now rather than at the next SYNC_FREQUENCY.
  deliverLocally({ kind: "resync" }, true);
}

/**
 * Carries events of `kinds` to the other instances and delivers theirs here. Returns the stop
 * (tests); a process otherwise keeps it for its life (the connections never keep it alive).
 * `origin`: who "here" is; messages of the same origin are not delivered.
 */
export function bridgeBusToRedis(
  url: string,
  kinds: ReadonlySet<CacheEvent["kind"]>,
  origin: string = randomBytes(8).toString("hex"),
): () => Promise<void> {
  const onDown = (error: unknown) => {
    if (outage) return;
    outage = true;
    log.error({ err: error }, "Redis bus unavailable: changes and breaker states stay within this instance");
  };
  const channel = busChannel(url);
  const publisher: Promise<Client | null> = connect(url, onDown).catch((error) => (onDown(error), null));
  const subscriber: Promise<Client | null> = connect(url, onDown)
    .then(async (client) => {
      await client.subscribe(channel, (message) => {
        let parsed: { origin?: string; event?: CacheEvent };
        try {
          parsed = JSON.parse(message);
        } catch {
          return;
        }
        if (parsed.origin !== origin && parsed.event && kinds.has(parsed.event.kind)) deliverLocally(parsed.event, true);
      });
      return client;
    })
    .catch((error) => (onDown(error), null));
  const removePublisher = addRemotePublisher((event) => {
    if (!kinds.has(event.kind)) return;
    const message = JSON.stringify({ origin, event });
    void publisher
      .then(async (client) => {
        if (client?.isReady) await client.publish(channel, message);
      })
      .catch(onDown);
  });
  return async () => {
    removePublisher();
    for (const client of await Promise.all([publisher, subscriber])) if (client?.isOpen) client.destroy();
  };
}

/** Which kinds of event travel between instances (a Record, so that a new kind must be decided): all but the local resync. */
const KINDS: Record<CacheEvent["kind"], boolean> = { channels: true, token: true, user: true, options: true, breaker: true, resync: false };
const EVERY_KIND: ReadonlySet<CacheEvent["kind"]> = new Set((Object.keys(KINDS) as CacheEvent["kind"][]).filter((k) => KINDS[k]));

/**
 * With REDIS_CONN_STRING: joins this process to the bus between instances (once per process; the
 * console and every relay worker call it). Without, a no-op: other instances see changes within SYNC_FREQUENCY.
 */
export function bridgeInstances(): void {
  if (!env.REDIS_CONN_STRING) return;
  processSingleton("redisBus", () => bridgeBusToRedis(env.REDIS_CONN_STRING, EVERY_KIND, env.QIAO_INSTANCE_ID || undefined));
}
