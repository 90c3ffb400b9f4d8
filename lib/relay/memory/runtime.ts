// Process-wide relay machinery: the quota ledger, the upstream HTTP agent and the recovery of
// holds left by a crashed instance. One of each per process (globalThis), started on first use.
import { randomBytes } from "node:crypto";
import { Agent } from "undici";
import { claimLease } from "@/lib/db/lease";
import { type DirectDb, getDirectDb, getLogDirectDb } from "@/lib/db/direct";
import { separateLogDb } from "@/lib/db/kind";
import { env, isMaster } from "@/lib/env";
import { DEFAULT_LEDGER_OPTIONS, type LedgerOptions, QuotaLedger, recoverHolds } from "@/lib/billing/ledger";
import { publicOnlyConnector } from "@/lib/net/public-connect";
import { startRelayState } from "@/lib/relay/memory/key-user-channel-cache";
import { processSingleton } from "@/lib/singleton";
import { componentLogger } from "@/lib/log";

const log = componentLogger("ledger");

type Runtime = {
  ledger: Promise<QuotaLedger> | null;
  /** The ledger once started: the hot path takes it without an await. */
  ready: QuotaLedger | null;
  agent: Agent | null;
  publicAgent: Agent | null;
  recovery: NodeJS.Timeout | null;
  /** Called first at shutdown: they end what is still running and settle it into the ledger. */
  stoppers: Set<() => void>;
};
const runtime = processSingleton<Runtime>("relayRuntime", () => ({
  ledger: null,
  ready: null,
  agent: null,
  publicAgent: null,
  recovery: null,
  stoppers: new Set(),
}));
runtime.stoppers ??= new Set(); // a runtime object made by an older copy of this module

export const ledgerOptions = () => ({ ...DEFAULT_LEDGER_OPTIONS, staleSeconds: env.HOLD_STALE_SECONDS });

/** The process's ledger, started on first use (with `options`, which tests shorten). */
export function getLedger(options: LedgerOptions = ledgerOptions()): Promise<QuotaLedger> {
  if (!runtime.ledger) {
    startRelayState();
    runtime.ready = null;
    runtime.ledger = getDirectDb().then(async (db) => {
      await startRecovery(db);
      const ledger = new QuotaLedger(db, options, separateLogDb ? await getLogDirectDb() : null);
      ledger.start();
      runtime.ready = ledger;
      return ledger;
    });
  }
  return runtime.ledger;
}

/** The started ledger, or null before getLedger() has finished starting it. */
export function readyLedger(): QuotaLedger | null {
  return runtime.ledger ? runtime.ready : null;
}

export const HOLD_SWEEP_LEASE_KEY = "lease:HoldSweep";
const SWEEP_EVERY_MS = 60_000;
const sweeper = processSingleton("holdSweeper", () => `${process.pid}-${randomBytes(4).toString("hex")}`);

/**
 * Closes holds left open by a crashed instance, now and then every minute on the master (an
 * instance may die while others keep running). A hold is orphaned once it has gone
 * HOLD_STALE_SECONDS without a refresh; live instances refresh theirs well within that. Every
 * process of the master sweeps when it starts; the sweep of each minute is one process's, the one
 * that takes the lease (lib/db/lease.ts) whatever the number of relay workers or masters.
 */
async function startRecovery(db: DirectDb) {
  if (!isMaster || runtime.recovery) return;
  const closed = await recoverHolds(db, env.HOLD_STALE_SECONDS);
  if (closed) log.info({ holds: closed }, "closed holds left open by a stopped instance");
  const sweep = async () => {
    const lease = { key: HOLD_SWEEP_LEASE_KEY, holder: sweeper, now: Date.now(), ttlMs: SWEEP_EVERY_MS - 5_000, renew: false };
    if (await claimLease(lease, db)) await recoverHolds(db, env.HOLD_STALE_SECONDS);
  };
  runtime.recovery = setInterval(() => void sweep().catch(() => undefined), SWEEP_EVERY_MS);
  runtime.recovery.unref();
}

/** Keep-alive connection pool to upstreams; RELAY_TIMEOUT bounds the wait for headers and body. */
export function upstreamAgent(): Agent {
  runtime.agent ??= new Agent(agentOptions(CONNECT_OPTIONS));
  return runtime.agent;
}

/** The same pool, except that connections to internal addresses are refused (see publicOnlyConnector). */
export function publicUpstreamAgent(): Agent {
  runtime.publicAgent ??= new Agent(agentOptions(publicOnlyConnector(CONNECT_OPTIONS)));
  return runtime.publicAgent;
}

/**
 * The pool a channel's requests go through. An address that only root set (or approved) may be
 * anything; one set by an admin below root may not reach internal hosts while root has turned
 * ChannelPrivateAddressAllowed off. Decided per request from memory: the DNS check itself runs
 * when the public pool opens a connection.
 */
export function agentForChannel(channel: { address_by_root: boolean }, options: { ChannelPrivateAddressAllowed: boolean }): Agent {
  return channel.address_by_root || options.ChannelPrivateAddressAllowed ? upstreamAgent() : publicUpstreamAgent();
}

const CONNECT_OPTIONS = { timeout: 10_000 };

function agentOptions(connect: Agent.Options["connect"]): Agent.Options {
  const timeout = env.RELAY_TIMEOUT > 0 ? env.RELAY_TIMEOUT * 1000 : 0;
  return {
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    connections: null,
    pipelining: 1,
    headersTimeout: timeout,
    bodyTimeout: 0,
    connect,
  };
}

/** Registers work to end at shutdown, before the ledger's last write (the relay's open streams). */
export function onRelayShutdown(stop: () => void): void {
  runtime.stoppers.add(stop);
}

/**
 * Call on shutdown, after the grace period: ends the streams still running (each billed for what
 * it delivered), cuts the upstream requests still waiting (nothing was delivered: not billed),
 * then writes pending usage and returns unused holds.
 */
export async function shutdownRelay(): Promise<void> {
  for (const stop of runtime.stoppers) stop();
  void runtime.agent?.destroy().catch(() => undefined);
  void runtime.publicAgent?.destroy().catch(() => undefined);
  if (runtime.ledger) await (await runtime.ledger).close();
  if (runtime.recovery) clearInterval(runtime.recovery);
  runtime.recovery = null;
}
