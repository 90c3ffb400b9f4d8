// /healthz and /readyz. Health says the process answers, nothing more (no database, no console
// hop). Readiness says this instance should get traffic: the database answers a trivial query,
// every migration this build knows is applied, Redis (when REDIS_CONN_STRING is set) answers PING,
// the log database (when LOG_SQL_DSN is set) answers a trivial query, and the process is not
// draining (lib/server/drain.ts). Redis down is not "not ready": the instance goes on with its own
// caches (the request limits count in the process, the breakers stay local), so it is said in the
// detail and once in the log, and the status stays 200. Nor is the log database down: the money is
// on the main database, and the log rows wait in memory (lib/billing/ledger.ts) until it answers.
//
// The database and Redis probes are shared by every request for PROBE_CACHE_MS, and concurrent
// requests wait for one probe, so a storm of probes costs one query per second. The answer names
// no address, DSN or credential: errors are cut to their message with any URL in it replaced.
import { env } from "@/lib/env";
import { dbKind } from "@/lib/db/kind";
import { type DirectDb, getDirectDb, getLogDirectDb } from "@/lib/db/direct";
import type { Migration } from "@/lib/db/migrations.generated";
import { RedisCache, sharedCache } from "@/lib/cache/shared";
import { isDraining } from "@/lib/server/drain";
import { componentLogger } from "@/lib/log";

const log = componentLogger("health");

export const HEALTH_PATH = "/healthz";
export const READY_PATH = "/readyz";

/** How long a probe's result is reused. */
const PROBE_CACHE_MS = 1_000;
/** A probe that has not answered by then counts as failed (a database or Redis that hangs). */
const PROBE_TIMEOUT_MS = 2_000;

export type CheckResult = { ok: boolean; ms: number; error?: string };
export type MigrationsResult = { ok: boolean; applied?: number; pending?: string[]; error?: string };
/** Redis, or the log database: optional, and never a reason to take the instance out. */
export type OptionalResult = { ok: boolean; configured: boolean; ms?: number; error?: string; fallback?: string };
export type RedisResult = OptionalResult;

export type Readiness = {
  status: "ready" | "not_ready";
  checks: {
    database: CheckResult;
    migrations: MigrationsResult;
    redis: RedisResult;
    /** The log database (LOG_SQL_DSN); `configured: false` when the logs are on the main one. */
    logs: OptionalResult;
    draining: boolean;
  };
};

/** What the probes need: the process's own (processProbes) or a test's. */
export type ReadinessProbes = {
  db: () => Promise<DirectDb>;
  /** The migrations this build applies for `kind`; loaded only when /readyz is first asked. */
  migrations: () => Promise<Migration[]>;
  /** Null when REDIS_CONN_STRING is not set. */
  redis: { ping(): Promise<void> } | null;
  /** The log database's connection; null (or absent) when LOG_SQL_DSN is not set. */
  logDb?: (() => Promise<DirectDb>) | null;
};

type Probed = Omit<Readiness["checks"], "draining">;

/** Answers /readyz from probes taken at most PROBE_CACHE_MS ago. */
export class ReadinessCheck {
  private last: { at: number; result: Promise<Probed> } | null = null;
  /** Whether each optional check found its service down last time (so the log says it once). */
  private readonly down = { redis: false, logs: false };

  constructor(private readonly probes: ReadinessProbes) {}

  async check(): Promise<Readiness> {
    const now = Date.now();
    if (!this.last || now - this.last.at >= PROBE_CACHE_MS) this.last = { at: now, result: this.probe() };
    const checks = { ...(await this.last.result), draining: isDraining() };
    const ready = checks.database.ok && checks.migrations.ok && !checks.draining;
    return { status: ready ? "ready" : "not_ready", checks };
  }

  private async probe(): Promise<Probed> {
    const [database, migrations, redis, logs] = await Promise.all([this.database(), this.migrations(), this.redis(), this.logs()]);
    return { database, migrations, redis, logs };
  }

  private async database(): Promise<CheckResult> {
    const started = performance.now();
    try {
      await withinTimeout(this.probes.db().then((db) => db.query("SELECT 1 AS one")));
      return { ok: true, ms: elapsed(started) };
    } catch (error) {
      return { ok: false, ms: elapsed(started), error: safeMessage(error) };
    }
  }

  private async migrations(): Promise<MigrationsResult> {
    try {
      const [{ MIGRATIONS_TABLE, pendingOf }, list, db] = await Promise.all([
        import("@/lib/db/migrate"),
        this.probes.migrations(),
        this.probes.db(),
      ]);
      const rows = await withinTimeout(db.query(`SELECT id, checksum FROM ${MIGRATIONS_TABLE} ORDER BY id`));
      const applied = rows.map((r) => ({ id: String(r.id), checksum: String(r.checksum) }));
      // pendingOf throws on a migration this build does not know or one changed after it was applied.
      const pending = pendingOf(list, applied).map((m) => m.id);
      return { ok: pending.length === 0, applied: applied.length, pending };
    } catch (error) {
      return { ok: false, error: safeMessage(error) };
    }
  }

  private redis(): Promise<RedisResult> {
    const redis = this.probes.redis;
    return this.optional("redis", redis && (() => redis.ping()), {
      down: "Redis unreachable: this instance goes on with its local caches",
      up: "Redis answers again",
      fallback: "local caches",
    });
  }

  private logs(): Promise<OptionalResult> {
    const logDb = this.probes.logDb;
    return this.optional("logs", logDb && (() => logDb().then((db) => db.query("SELECT 1 AS one"))), {
      down: "log database unreachable: log rows wait in memory until it answers",
      up: "the log database answers again",
      fallback: "log rows held in memory",
    });
  }

  /**
   * A check that never takes the instance out (Redis, the log database): null when not configured;
   * down is said in the detail, and once in the log until it answers again.
   */
  private async optional(
    which: keyof typeof this.down,
    probe: (() => Promise<unknown>) | null | undefined,
    say: { down: string; up: string; fallback: string },
  ): Promise<OptionalResult> {
    if (!probe) return { ok: true, configured: false };
    const started = performance.now();
    try {
      await withinTimeout(probe());
      if (this.down[which]) log.info(say.up);
      this.down[which] = false;
      return { ok: true, configured: true, ms: elapsed(started) };
    } catch (error) {
      const message = safeMessage(error);
      if (!this.down[which]) log.error({ reason: message }, say.down);
      this.down[which] = true;
      return { ok: false, configured: true, ms: elapsed(started), error: message, fallback: say.fallback };
    }
  }
}

/** The body and status of /healthz: the process answers. */
export const HEALTH_BODY = JSON.stringify({ status: "ok" });

/** /readyz's status: 200 when ready, else 503. */
export function readinessStatus(r: Readiness): number {
  return r.status === "ready" ? 200 : 503;
}

let processCheck: ReadinessCheck | null = null;

/** The process's readiness check, on its own database connection, migrations and Redis. */
export function processReadiness(): ReadinessCheck {
  if (processCheck) return processCheck;
  const shared = env.REDIS_CONN_STRING ? sharedCache() : null;
  processCheck = new ReadinessCheck({
    db: getDirectDb,
    // The migrations' SQL (~90 kB) loads at the first /readyz, not with the relay.
    migrations: async () => (await import("@/lib/db/migrations.generated")).migrations[dbKind],
    redis: shared instanceof RedisCache ? shared : null,
    logDb: env.LOG_SQL_DSN ? getLogDirectDb : null,
  });
  return processCheck;
}

function withinTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const elapsed = (started: number) => Math.round(performance.now() - started);

/** An error's message, short, with any URL in it (a DSN and its password) replaced. */
export function safeMessage(error: unknown): string {
  // A refused connection to a name with several addresses is an AggregateError with no message.
  const e = error as { message?: unknown; code?: unknown; errors?: { message?: unknown }[]; name?: unknown } | null;
  const message = String(e?.message || e?.code || e?.errors?.[0]?.message || e?.name || error);
  return message.replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, "<address>").slice(0, 200);
}

export type HealthAnswer = { status: number; headers: Record<string, string>; body: string };

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };

/** The answer to HEALTH_PATH or READY_PATH (`path` is one of them); draining, it closes the connection. */
export async function healthAnswer(path: string): Promise<HealthAnswer> {
  const headers: Record<string, string> = isDraining() ? { ...JSON_HEADERS, connection: "close" } : { ...JSON_HEADERS };
  if (path === HEALTH_PATH) return { status: 200, headers, body: HEALTH_BODY };
  const readiness = await processReadiness().check();
  return { status: readinessStatus(readiness), headers, body: JSON.stringify(readiness) };
}
