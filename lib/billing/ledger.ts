// The relay's money path: reserve → settle, exact across instances and crashes.
//
// Every reservation draws on a hold (a `quota_holds` row) that this instance took from the
// user's balance (and the token's remain_quota) with one conditional UPDATE each:
//   UPDATE users  SET quota = quota - n WHERE id = ? AND quota >= n
//   UPDATE tokens SET remain_quota = remain_quota - n WHERE id = ? AND remain_quota >= n
// so the sum of all holds never exceeds what the user had, whichever instance asks. When the
// balance is ample the hold is larger than one request (a lease) and later requests reserve from
// it in memory; when it is tight the hold is exactly one request's estimate. Usage is settled in
// memory and written in batches (logs, counters, `consumed`); closing a hold returns
// `amount - consumed` exactly once (a conditional state change guards it). A hold whose instance
// died stops being refreshed and is closed the same way by recoverHolds() at the next start.
//
// Lock order: every transaction here touches rows in the same order — users, tokens, quota_holds,
// channels, then inserts (logs, quota_data), ids ascending within a table — so two of them (two
// instances, or a lease racing a flush) can wait on each other but never deadlock. A conflict
// the database reports anyway (PostgreSQL 40P01/40001, MySQL 1213/1205) is retried.
import { randomBytes } from "node:crypto";
import type { Db, DbKind } from "@/lib/db";
import type { DirectWriter, Statement } from "@/lib/db/direct";
import { logInsertStatements, quoteIdent, type LogRow } from "@/lib/logs/insert";
import { nowSeconds } from "@/lib/db/num";

const SHORTFALL = Symbol.for("qiao.QuotaShortfall");

/** Brand check: the ledger may be a globalThis singleton created by another copy of this module. */
export function isQuotaShortfall(e: unknown): e is QuotaShortfall {
  return typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[SHORTFALL] === true;
}

export class QuotaShortfall extends Error {
  readonly [SHORTFALL] = true;
  constructor(readonly who: "user" | "token") {
    super(who === "user" ? "用户额度不足" : "令牌额度不足");
  }
}

export type HoldOwner = {
  userId: number;
  /** The token whose remain_quota is drawn on; 0 for the playground and unlimited tokens. */
  tokenId: number;
};

/** Counters and the log row a settled request adds; written with the next flush. */
export type UsageRecord = {
  userId: number;
  tokenId: number;
  channelId: number;
  modelName: string;
  promptTokens: number;
  completionTokens: number;
  /** The consume (or error) log row, or null when LogConsumeEnabled is off. */
  log: LogRow | null;
  /** A failed request: its log row is written, but it adds nothing to usage counters. */
  failed?: boolean;
  /** Set by settle(): the quota actually charged. */
  charged?: bigint;
};

type Hold = {
  key: string;
  owner: HoldOwner;
  /** Row id, or null before the first acquisition. */
  id: string | null;
  /** Quota still free to reserve in memory. */
  available: bigint;
  /** Settled usage not yet written to `consumed`. */
  unflushed: bigint;
  /** Reservations not yet settled. */
  inflight: number;
  lastUsed: number;
  openedAt: number;
  acquiring: Promise<void> | null;
  closing: boolean;
};

export type Reservation = { hold: Hold; amount: bigint; settled: boolean };

export type LedgerOptions = {
  /** A hold not refreshed for this long belongs to a dead instance. */
  staleSeconds: number;
  /** Idle holds are closed (unused quota returned) after this long. */
  idleSeconds: number;
  /** Holds are closed and reopened at this age, so no quota stays parked for long. */
  maxAgeSeconds: number;
  flushIntervalMs: number;
  /** Flush early when this many records wait. */
  flushBatch: number;
};

export const DEFAULT_LEDGER_OPTIONS: LedgerOptions = {
  staleSeconds: 300,
  idleSeconds: 30,
  maxAgeSeconds: 120,
  flushIntervalMs: 250,
  flushBatch: 500,
};

/** How much to take from the balance for a hold that needs `need` more. */
export function holdChunk(need: bigint, balanceHint: bigint): bigint {
  // Lease ahead only when the balance covers at least 100 such requests, and then at most an
  // eighth of it, so other instances can still reserve, and at most 500 requests' worth, so a
  // busy key costs one balance write per 500 requests, not one per request.
  if (balanceHint < need * 100n) return need;
  const chunk = balanceHint / 8n;
  const cap = need * 500n;
  return chunk < need ? need : chunk > cap ? cap : chunk;
}

export class QuotaLedger {
  private holds = new Map<string, Hold>();
  private pending: UsageRecord[] = [];
  private pendingConsumed = new Map<Hold, bigint>();
  private flushing: Promise<void> | null = null;
  /** Holds taken out of use whose close waits for their usage to be written. */
  private unclosed = new Set<Hold>();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private db: Db,
    /** Usage batches go straight to the driver; Prisma handles the rare lease writes. */
    private writer: DirectWriter,
    private options: LedgerOptions = DEFAULT_LEDGER_OPTIONS,
  ) {}

  start() {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.options.flushIntervalMs);
    this.timer.unref();
  }

  /**
   * Reserves `amount` for one request. Throws QuotaShortfall when the user (or token) cannot
   * cover it. `balanceHint` (the user's last known balance) only sizes the lease.
   */
  async reserve(owner: HoldOwner, amount: bigint, balanceHint: bigint): Promise<Reservation> {
    return this.tryReserve(owner, amount) ?? this.reserveSlow(owner, amount, balanceHint);
  }

  /**
   * reserve() without a database write: a reservation when the owner's open hold has room (the
   * steady state), else null (then call reserve()).
   */
  tryReserve(owner: HoldOwner, amount: bigint): Reservation | null {
    if (this.closed) throw new Error("ledger closed");
    const hold = this.holds.get(`${owner.userId}:${owner.tokenId}`);
    if (!hold || hold.closing || hold.available < amount) return null;
    hold.available -= amount;
    hold.inflight++;
    hold.lastUsed = Date.now();
    return { hold, amount, settled: false };
  }

  private async reserveSlow(owner: HoldOwner, amount: bigint, balanceHint: bigint): Promise<Reservation> {
    if (this.closed) throw new Error("ledger closed");
    const key = `${owner.userId}:${owner.tokenId}`;
    let hold = this.holds.get(key);
    if (!hold || hold.closing) {
      hold = {
        key,
        owner,
        id: null,
        available: 0n,
        unflushed: 0n,
        inflight: 0,
        lastUsed: Date.now(),
        openedAt: Date.now(),
        acquiring: null,
        closing: false,
      };
      this.holds.set(key, hold);
    }
    for (;;) {
      if (hold.closing) return this.reserveSlow(owner, amount, balanceHint);
      if (hold.available >= amount) {
        hold.available -= amount;
        hold.inflight++;
        hold.lastUsed = Date.now();
        return { hold, amount, settled: false };
      }
      if (hold.acquiring) {
        await hold.acquiring.catch(() => undefined);
        continue;
      }
      const need = amount - hold.available;
      const attempt = this.acquire(hold, need, holdChunk(need, balanceHint));
      hold.acquiring = attempt;
      try {
        await attempt;
      } finally {
        hold.acquiring = null;
      }
    }
  }

  /** Takes `chunk` (or, failing that, just `need`) from the balance into the hold. */
  private async acquire(hold: Hold, need: bigint, chunk: bigint): Promise<void> {
    for (const size of chunk > need ? [chunk, need] : [need]) {
      if (await this.take(hold, size)) {
        hold.available += size;
        return;
      }
    }
    const who = await this.shortfallOf(hold.owner, need);
    throw new QuotaShortfall(who);
  }

  private async take(hold: Hold, size: bigint): Promise<boolean> {
    const { userId, tokenId } = hold.owner;
    try {
      const created = await retryConflicts(() =>
        this.db.$transaction(async (tx) => {
          const now = nowSeconds();
          const u = await tx.$executeRaw`UPDATE users SET quota = quota - ${size} WHERE id = ${userId} AND quota >= ${size}`;
          if (u !== 1) throw new NoFunds();
          if (tokenId) {
            const t =
              await tx.$executeRaw`UPDATE tokens SET remain_quota = remain_quota - ${size} WHERE id = ${tokenId} AND remain_quota >= ${size}`;
            if (t !== 1) throw new NoFunds();
          }
          if (hold.id) {
            const h =
              await tx.$executeRaw`UPDATE quota_holds SET amount = amount + ${size}, updated_at = ${now} WHERE id = ${hold.id} AND state = 0`;
            if (h !== 1) throw new Error(`hold ${hold.id} closed under an open lease`);
            return null;
          }
          const id = newHoldId();
          await tx.$executeRaw`INSERT INTO quota_holds (id, user_id, token_id, amount, consumed, created_at, updated_at, state) VALUES (${id}, ${userId}, ${tokenId}, ${size}, ${0n}, ${now}, ${now}, ${0})`;
          return id;
        }, TX),
      );
      // Only once committed: a transaction retried after a conflict must not see a hold id that
      // was rolled back.
      if (created) {
        hold.id = created;
        hold.openedAt = Date.now();
      }
      return true;
    } catch (error) {
      if (error instanceof NoFunds) return false; // thrown and caught inside this module copy
      throw error;
    }
  }

  private async shortfallOf(owner: HoldOwner, need: bigint): Promise<"user" | "token"> {
    if (!owner.tokenId) return "user";
    const token = await this.db.token.findUnique({ where: { id: owner.tokenId }, select: { remain_quota: true } });
    return token && token.remain_quota < need ? "token" : "user";
  }

  /**
   * Settles a reservation with the quota actually used (once; later calls are ignored). Usage
   * beyond the reservation is drawn from the hold, then from the balance as far as it goes; the
   * amount really charged is returned (it is less than `actual` only when the balance ran out).
   */
  async settle(reservation: Reservation, actual: bigint, record: UsageRecord): Promise<bigint> {
    if (reservation.settled) return 0n;
    reservation.settled = true;
    const hold = reservation.hold;
    if (actual < 0n) actual = 0n;
    let charged = actual;
    const over = actual - reservation.amount;
    if (over <= 0n) hold.available -= over;
    else {
      // This request's own excess: from what the hold has spare, claimed at once so that
      // concurrent settles never count the same units, then from the balance as far as it goes.
      const fromHold = hold.available > over ? over : hold.available > 0n ? hold.available : 0n;
      hold.available -= fromHold;
      const missing = over - fromHold;
      if (missing > 0n) {
        const got = await this.takeUpTo(hold, missing); // added to the hold and spent at once
        charged -= missing - got;
      }
    }
    hold.inflight--;
    hold.lastUsed = Date.now();
    hold.unflushed += charged;
    this.pendingConsumed.set(hold, (this.pendingConsumed.get(hold) ?? 0n) + charged);
    record.charged = charged;
    if (record.log && !record.failed) record.log.quota = charged;
    this.pending.push(record);
    if (this.pending.length >= this.options.flushBatch) void this.flush();
    if (hold.inflight === 0 && hold.available === 0n && hold.owner && !hold.acquiring) {
      // A tight hold that is used up: close it now rather than waiting for idleness.
      void this.flush().then(() => this.closeIfIdle(hold, true));
    }
    return charged;
  }

  /** Takes as much as possible, up to `want`, from a balance that may not cover it. */
  private async takeUpTo(hold: Hold, want: bigint): Promise<bigint> {
    if (await this.take(hold, want)) return want;
    const { userId, tokenId } = hold.owner;
    const [user, token] = await Promise.all([
      this.db.user.findUnique({ where: { id: userId }, select: { quota: true } }),
      tokenId ? this.db.token.findUnique({ where: { id: tokenId }, select: { remain_quota: true } }) : null,
    ]);
    let can = user ? user.quota : 0n;
    if (token && token.remain_quota < can) can = token.remain_quota;
    if (can <= 0n) return 0n;
    if (can > want) can = want;
    return (await this.take(hold, can)) ? can : 0n;
  }

  /** Writes settled usage: log rows, counters and holds' `consumed`, in one transaction. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.pending.length ? this.flush() : undefined));
    if (!this.pending.length && !this.pendingConsumed.size) return Promise.resolve();
    const records = this.pending;
    const consumed = this.pendingConsumed;
    this.pending = [];
    this.pendingConsumed = new Map();
    this.flushing = this.write(records, consumed)
      .then(() => {
        for (const [hold, amount] of consumed) hold.unflushed -= amount;
      })
      .catch((error) => {
        // Put the work back; the next tick retries it. Holds keep the money safe meanwhile.
        this.reportFlushFailure(error);
        this.pending = records.concat(this.pending);
        for (const [hold, amount] of consumed) this.pendingConsumed.set(hold, (this.pendingConsumed.get(hold) ?? 0n) + amount);
      })
      .finally(() => {
        this.flushing = null;
      });
    return this.flushing;
  }

  private busySince = 0;
  private busyCount = 0;

  /**
   * SQLite admits one writer at a time, and several processes (relay workers, the console) share
   * the file: a batch that finds it locked simply waits for the next tick. That is routine, so it
   * is summarised once a minute instead of logged each time; anything else is logged as it comes.
   */
  private reportFlushFailure(error: unknown) {
    if ((error as { code?: unknown })?.code === "SQLITE_BUSY") {
      const now = Date.now();
      if (now - this.busySince >= 60_000) {
        if (this.busyCount)
          console.warn(`[ledger] database busy: ${this.busyCount} batch(es) in the last minute waited for the next flush`);
        this.busySince = now;
        this.busyCount = 0;
      }
      this.busyCount++;
      return;
    }
    console.error("[ledger] flush failed, will retry:", error);
  }

  private async write(records: UsageRecord[], consumed: Map<Hold, bigint>) {
    const now = nowSeconds();
    const users = new Map<number, { quota: bigint; count: number }>();
    const tokens = new Map<number, bigint>();
    const channels = new Map<number, bigint>();
    const buckets = new Map<
      string,
      { user_id: number; username: string; model_name: string; created_at: number; token_used: bigint; count: number; quota: bigint }
    >();
    const logs: LogRow[] = [];
    for (const r of records) {
      if (r.failed) {
        if (r.log) logs.push(r.log);
        continue;
      }
      const quota = r.charged ?? 0n;
      const u = users.get(r.userId) ?? { quota: 0n, count: 0 };
      u.quota += quota;
      u.count++;
      users.set(r.userId, u);
      if (r.tokenId) tokens.set(r.tokenId, (tokens.get(r.tokenId) ?? 0n) + quota);
      if (r.channelId) channels.set(r.channelId, (channels.get(r.channelId) ?? 0n) + quota);
      if (r.log) {
        logs.push(r.log);
        const hour = r.log.created_at - (r.log.created_at % 3600);
        const key = `${r.userId}\0${r.modelName}\0${hour}`;
        const b = buckets.get(key) ?? {
          user_id: r.userId,
          username: r.log.username,
          model_name: r.modelName,
          created_at: hour,
          token_used: 0n,
          count: 0,
          quota: 0n,
        };
        b.token_used += BigInt(r.promptTokens + r.completionTokens);
        b.count++;
        b.quota += quota;
        buckets.set(key, b);
      }
    }
    const k = this.writer.kind;
    const statements: Statement[] = [];
    // The lock order of the header: users, tokens, quota_holds, channels, ids ascending.
    for (const [id, u] of sortById(users))
      statements.push({
        sql: "UPDATE users SET used_quota = used_quota + ?, request_count = request_count + ? WHERE id = ?",
        params: [u.quota, u.count, id],
      });
    for (const [id, q] of sortById(tokens))
      statements.push({ sql: "UPDATE tokens SET used_quota = used_quota + ?, accessed_time = ? WHERE id = ?", params: [q, now, id] });
    const holds = [...consumed].filter(([hold, amount]) => hold.id && amount).map(([hold, amount]) => [hold.id!, amount] as const);
    for (const [id, amount] of holds.sort(byFirst)) {
      statements.push({ sql: "UPDATE quota_holds SET consumed = consumed + ?, updated_at = ? WHERE id = ?", params: [amount, now, id] });
    }
    for (const [id, q] of sortById(channels))
      statements.push({ sql: "UPDATE channels SET used_quota = used_quota + ? WHERE id = ?", params: [q, id] });
    statements.push(...logInsertStatements(k, logs));
    for (const [, b] of [...buckets].sort(byFirst))
      statements.push({
        sql: quotaDataUpsert(k),
        params: [b.user_id, b.username, b.model_name, b.created_at, b.token_used, b.count, b.quota],
      });
    if (statements.length) await this.writer.transaction(statements);
  }

  private async tick() {
    await this.flush();
    for (const hold of [...this.unclosed]) await this.finishClose(hold);
    const now = Date.now();
    const heartbeat: string[] = [];
    for (const hold of this.holds.values()) {
      const idle = now - hold.lastUsed > this.options.idleSeconds * 1000;
      const old = now - hold.openedAt > this.options.maxAgeSeconds * 1000;
      if (idle || old) await this.closeIfIdle(hold, true);
      else if (hold.id) heartbeat.push(hold.id);
    }
    // Open holds are refreshed well within staleSeconds so recovery never takes a live one.
    if (heartbeat.length && now - this.lastHeartbeat > (this.options.staleSeconds * 1000) / 4) {
      this.lastHeartbeat = now;
      const ts = nowSeconds();
      await this.db.quotaHold.updateMany({ where: { id: { in: heartbeat }, state: 0 }, data: { updated_at: ts } }).catch(() => undefined);
    }
  }
  private lastHeartbeat = 0;

  /** Closes a hold with no request in flight, returning its unused quota. */
  private async closeIfIdle(hold: Hold, force: boolean) {
    if (hold.inflight > 0 || hold.acquiring || hold.closing || (!force && hold.available > 0n)) return;
    hold.closing = true;
    if (this.holds.get(hold.key) === hold) this.holds.delete(hold.key);
    await this.finishClose(hold);
  }

  /**
   * Closes a hold that is out of use, once all its usage is written: closing refunds
   * `amount - consumed`, so closing before a failed flush succeeds would refund usage not yet
   * recorded. Until then (and if the close itself fails) it waits for the next tick.
   */
  private async finishClose(hold: Hold) {
    if (!hold.id) return;
    if (hold.unflushed > 0n) await this.flush();
    if (hold.unflushed > 0n) {
      this.unclosed.add(hold);
      return;
    }
    try {
      await closeHold(this.db, hold.id);
      this.unclosed.delete(hold);
    } catch (error) {
      this.unclosed.add(hold);
      console.error(`[ledger] closing hold ${hold.id} failed, will retry:`, error);
    }
  }

  /** Writes everything and returns all unused quota; for shutdown. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
    for (const hold of [...this.holds.values()]) {
      hold.inflight = 0;
      await this.closeIfIdle(hold, true);
    }
    for (const hold of [...this.unclosed]) await this.finishClose(hold);
    if (this.unclosed.size) console.error(`[ledger] ${this.unclosed.size} hold(s) left open; the next start settles them`);
    await this.writer.close();
  }

  /** For tests and metrics. */
  get openHolds(): number {
    return this.holds.size;
  }
}

class NoFunds extends Error {}

/** Adds to an hourly usage bucket, creating it on first use. */
function quotaDataUpsert(kind: DbKind): string {
  const q = (n: string) => quoteIdent(kind, n);
  const cols = ["user_id", "username", "model_name", "created_at", "token_used", "count", "quota"].map(q).join(", ");
  const head = `INSERT INTO ${q("quota_data")} (${cols}) VALUES (?, ?, ?, ?, ?, ?, ?)`;
  const sums = ["token_used", "count", "quota"];
  if (kind === "mysql") return `${head} ON DUPLICATE KEY UPDATE ${sums.map((c) => `${q(c)} = ${q(c)} + VALUES(${q(c)})`).join(", ")}`;
  return `${head} ON CONFLICT (${q("user_id")}, ${q("model_name")}, ${q("created_at")}) DO UPDATE SET ${sums.map((c) => `${q(c)} = ${q("quota_data")}.${q(c)} + excluded.${q(c)}`).join(", ")}`;
}

/**
 * Ledger transactions are short, but under a burst many wait for a pooled connection; Prisma's
 * default 2 s wait would turn that queueing into failed requests.
 */
const TX = { maxWait: 30_000, timeout: 30_000 } as const;

function newHoldId(): string {
  return `${Date.now().toString(36)}-${randomBytes(8).toString("hex")}`;
}

/**
 * Closes a hold exactly once, returning `amount - consumed` to the user and the token. The refund
 * is written before the hold's state changes (the lock order), and the state change is conditional
 * on the amounts read: if another closer or a flush got there first, the transaction rolls back
 * and the hold is read again.
 */
export async function closeHold(db: Db, id: string): Promise<bigint> {
  for (;;) {
    const hold = await db.quotaHold.findUnique({
      where: { id },
      select: { user_id: true, token_id: true, amount: true, consumed: true, state: true },
    });
    if (hold?.state !== 0) return 0n;
    const refund = hold.amount - hold.consumed;
    const closed = await retryConflicts(() =>
      db.$transaction(async (tx) => {
        if (refund > 0n) {
          await tx.$executeRaw`UPDATE users SET quota = quota + ${refund} WHERE id = ${hold.user_id}`;
          if (hold.token_id) await tx.$executeRaw`UPDATE tokens SET remain_quota = remain_quota + ${refund} WHERE id = ${hold.token_id}`;
        }
        const n =
          await tx.$executeRaw`UPDATE quota_holds SET state = 1 WHERE id = ${id} AND state = 0 AND amount = ${hold.amount} AND consumed = ${hold.consumed}`;
        if (n !== 1) throw new HoldChanged(); // rolls the refund back; read the hold again
      }, TX),
    ).then(
      () => true,
      (error: unknown) => {
        if (error instanceof HoldChanged) return false;
        throw error;
      },
    );
    if (closed) return refund;
  }
}

class HoldChanged extends Error {}

/** Map entries in key order: the lock order's "ids ascending". */
const byFirst = (a: readonly [number | string, unknown], b: readonly [number | string, unknown]) =>
  a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
const sortById = <V>(m: Map<number, V>) => [...m].sort(byFirst);

/** A deadlock or serialization failure: the transaction was rolled back and may simply run again. */
export function isWriteConflict(error: unknown): boolean {
  for (let e = error as Record<string, unknown> | undefined, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const code = String(e.code ?? "");
    if (code === "P2034" || code === "40P01" || code === "40001" || e.errno === 1213 || e.errno === 1205) return true;
    if (/deadlock|TransactionWriteConflict|could not serialize/i.test(String(e.message ?? ""))) return true;
    const meta = e.meta as Record<string, unknown> | undefined;
    e = (meta?.driverAdapterError ?? e.cause) as Record<string, unknown> | undefined;
  }
  return false;
}

/** Runs `fn` again (up to 5 times, with a short random back-off) when it fails on a write conflict. */
export async function retryConflicts<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (attempt >= 5 || !isWriteConflict(error)) throw error;
      await new Promise((r) => setTimeout(r, attempt * (5 + Math.random() * 20)));
    }
  }
}

/** Closes holds left open by instances that died; returns how many it closed. */
export async function recoverHolds(db: Db, staleSeconds: number): Promise<number> {
  const before = nowSeconds() - staleSeconds;
  const stale = await db.quotaHold.findMany({ where: { state: 0, updated_at: { lt: before } }, select: { id: true } });
  let n = 0;
  for (const { id } of stale) if ((await closeHold(db, id)) >= 0n) n++;
  return n;
}
