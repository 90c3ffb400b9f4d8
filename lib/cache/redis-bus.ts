// Cache-bus events between instances, through Redis pub/sub (REDIS_CONN_STRING). Only the kinds
// that must reach every instance at once travel this way (the breakers' openings and closings);
// the other invalidations reach other instances within SYNC_FREQUENCY, as before. Each process
// of each instance publishes what it publishes locally and delivers what others published; an
// event that also came over the IPC of `npm start` arrives twice, which its listeners tolerate.
// Redis down: events stay within the instance until it is back (said once in the log); nothing waits.
import { randomBytes } from "node:crypto";
import { addRemotePublisher, deliverLocally, type CacheEvent } from "@/lib/cache/bus";

const CHANNEL = "qiao:bus";
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
  if (outage) console.log("[cache] Redis bus is back: breaker states are shared with the other instances again");
  outage = false;
}

/**
 * Carries events of `kinds` to the other instances and delivers theirs here. Returns the stop
 * (tests); a process otherwise keeps it for its life (the connections never keep it alive).
 */
export function bridgeBusToRedis(url: string, kinds: ReadonlySet<CacheEvent["kind"]>): () => Promise<void> {
  const origin = randomBytes(8).toString("hex");
  const onDown = (error: unknown) => {
    if (outage) return;
    outage = true;
    console.error(
      `[cache] Redis bus unavailable (${String((error as Error)?.message ?? error)}): breaker states stay within this instance`,
    );
  };
  const publisher: Promise<Client | null> = connect(url, onDown).catch((error) => (onDown(error), null));
  const subscriber: Promise<Client | null> = connect(url, onDown)
    .then(async (client) => {
      await client.subscribe(CHANNEL, (message) => {
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
        if (client?.isReady) await client.publish(CHANNEL, message);
      })
      .catch(onDown);
  });
  return async () => {
    removePublisher();
    for (const client of await Promise.all([publisher, subscriber])) if (client?.isOpen) client.destroy();
  };
}
