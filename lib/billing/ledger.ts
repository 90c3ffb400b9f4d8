// The relay's money path: reserve → settle, exact across instances and crashes.
//
// Every reservation draws on a hold (a `quota_holds` row) that this instance took from the
// user's balance (and the token's remain_quota) with one conditional UPDATE each:
//   UPDATE users  SET quota = quota - n WHERE id = ? AND quota >= n
//   UPDATE tokens SET remain_quota = remain_quota - n WHERE id = ? AND remain_quota >= n
// so the sum of all holds never exceeds what the user had, whichever instance asks. When the
// balance is ample the hold is larger than one request (a lease) and later requests reserve from
// it in memory; when it is tight the hold is exactly one request's estimate. Usage is settled in
// memory and written in batches (logs, counters, `consumed`, and the hold's in-flight total in
// `reserved`, which is what balances shown to people add back: see visibleQuota); closing a hold
// returns `amount - consumed` exactly once (a conditional state change guards it). A hold whose
// instance died stops being refreshed and is closed the same way by recoverHolds() at the next
// start; this instance refreshes every hold it still uses, however long its requests run.
//
// Usage is never free. Beyond its reservation a request draws on the hold's spare quota, then on
// the balance unconditionally (written with the next batch), even when that takes the balance
// below zero; a balance at or below zero then refuses every reservation until it is topped up. A
// batch whose hold turns out closed under it (recovery took it) charges the balance directly.
// With LOG_SQL_DSN the batch's log rows go to the log database right after the batch commits
// (two databases share no transaction); a refused log write is kept and retried, never re-charged.
//
// Lock order: every transaction here touches rows in the same order — users, tokens, quota_holds,
// channels, channel_keys, then inserts (logs, quota_data), ids ascending within a table — so two of them (two
// instances, or a lease racing a flush) can wait on each other but never deadlock. A conflict
// the database reports anyway (PostgreSQL 40P01/40001, MySQL 1213/1205) is retried.
import { isWriteConflict } from "@/lib/db/retry";
import { randomBytes } from "node:crypto";
import type { DbKind } from "@/lib/db/types";
import type { DirectDb, Statement } from "@/lib/db/direct";
import { logInsertStatements, quoteIdent, type LogRow } from "@/lib/logs/insert";
import { big, int, nowSeconds, str } from "@/lib/db/num";
import type { UsageBucket } from "@/lib/data/buckets";
import { billingWriteFailed } from "@/lib/metrics/registry";
import { componentLogger } from "@/lib/log";

const log = componentLogger("ledger");

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
  /** The key of a multi-key channel that served it (channel_keys.key_hash); "" or absent otherwise. */
  channelKeyHash?: string;
  modelName: string;
  promptTokens: number;
  completionTokens: number;
  /** The consume (or error) log row, or null when LogConsumeEnabled is off. */
  log: LogRow | null;
  /** A failed request: its log row is written, but it adds nothing to usage counters. */
  failed?: boolean;
  /** The data dashboard bucket (lib/data/buckets.ts) this usage adds to; none when DataExportEnabled is off. */
  bucket?: UsageBucket | null;
  /** Set by settle(): the quota actually charged. */
  charged?: bigint;
};

type Hold = {
  key: string;
  owner: HoldOwner;
  /** Row id, or null before the first acquisition. */
  id: string | null;
  /** The row's `amount` plus overruns not yet written. */
  amount: bigint;
  /** Quota still free to reserve in memory. */
  available: bigint;
  /** Usage written to the row's `consumed`. */
  consumed: bigint;
  /** Settled usage not yet written to `consumed`. */
  unflushed: bigint;
  /** The in-flight total last written to the row's `reserved`. */
  writtenReserved: bigint;
  /** Reservations not yet settled. */
  inflight: number;
  lastUsed: number;
  openedAt: number;
  acquiring: Promise<void> | null;
  closing: boolean;
  /** The row was closed under this instance (by recovery): its usage goes to the balance directly. */
  gone: boolean;
};

/** Reservations in flight on a hold: what it holds minus what is free and what is spent. */
const reservedOf = (hold: Hold) => hold.amount - hold.available - hold.consumed - hold.unflushed;

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

/** Log rows kept in memory while the log database (LOG_SQL_DSN) refuses them; older ones are dropped. */
const MAX_UNWRITTEN_LOGS = 100_000;

export class QuotaLedger {
  private holds = new Map<string, Hold>();
  private pending: UsageRecord[] = [];
  private pendingConsumed = new Map<Hold, bigint>();
  /** Per hold, usage beyond what it held: taken from the balance with the next batch. */
  private pendingOverrun = new Map<Hold, bigint>();
  private flushing: Promise<void> | null = null;
  /** Holds taken out of use whose close waits for their usage to be written. */
  private unclosed = new Set<Hold>();
  /** Closes started by settle(); close() waits for them. */
  private closings = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    /** Every read and write of the ledger goes through the driver (lib/db/direct.ts); the caller closes it. */
    private db: DirectDb,
    private options: LedgerOptions = DEFAULT_LEDGER_OPTIONS,
    /** The log database (LOG_SQL_DSN) when the logs live apart: log rows go there after each batch commits. */
    private logDb: DirectDb | null = null,
  ) {}

  /** Log rows whose batch committed but the log database refused: written with the next batch. */
  private unwrittenLogs: LogRow[] = [];

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
        amount: 0n,
        available: 0n,
        consumed: 0n,
        unflushed: 0n,
        writtenReserved: 0n,
        inflight: 0,
        lastUsed: Date.now(),
        openedAt: Date.now(),
        acquiring: null,
        closing: false,
        gone: false,
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
      const taken = await this.take(hold, size);
      if (taken === "gone") return this.retire(hold); // the caller sees it closing and opens another
      if (taken === "taken") {
        hold.amount += size;
        hold.available += size;
        return;
      }
    }
    const who = await this.shortfallOf(hold.owner, need);
    throw new QuotaShortfall(who);
  }

  private async take(hold: Hold, size: bigint): Promise<"taken" | "no-funds" | "gone"> {
    const { userId, tokenId } = hold.owner;
    const now = nowSeconds();
    // The lock order: users, tokens, quota_holds.
    const statements: Statement[] = [
      { sql: "UPDATE users SET quota = quota - ? WHERE id = ? AND quota >= ?", params: [size, userId, size], required: true },
    ];
    if (tokenId)
      statements.push({
        sql: "UPDATE tokens SET remain_quota = remain_quota - ? WHERE id = ? AND remain_quota >= ?",
        params: [size, tokenId, size],
        required: true,
      });
    const id = hold.id ?? newHoldId();
    statements.push(
      hold.id
        ? // Closed under us (recovery): the debit rolls back and the hold is retired.
          {
            sql: "UPDATE quota_holds SET amount = amount + ?, updated_at = ? WHERE id = ? AND state = 0",
            params: [size, now, id],
            required: true,
          }
        : {
            sql: "INSERT INTO quota_holds (id, user_id, token_id, amount, consumed, created_at, updated_at, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            params: [id, userId, tokenId, size, 0n, now, now, 0],
          },
    );
    const { failed } = await retryConflicts(() => this.db.transaction(statements));
    if (failed === statements.length - 1 && hold.id) return "gone";
    if (failed >= 0) return "no-funds";
    // Only once committed: a transaction retried after a conflict must not see a hold id that
    // was rolled back.
    if (!hold.id) {
      hold.id = id;
      hold.openedAt = Date.now();
    }
    return "taken";
  }

  /** Takes a hold closed under this instance out of use; requests still on it settle directly. */
  private retire(hold: Hold) {
    hold.gone = true;
    hold.closing = true;
    hold.available = 0n;
    if (this.holds.get(hold.key) === hold) this.holds.delete(hold.key);
  }

  private async shortfallOf(owner: HoldOwner, need: bigint): Promise<"user" | "token"> {
    if (!owner.tokenId) return "user";
    const [token] = await this.db.query("SELECT remain_quota FROM tokens WHERE id = ?", [owner.tokenId]);
    return token && big(token.remain_quota) < need ? "token" : "user";
  }

  /**
   * Settles a reservation with the quota actually used (once; later calls are ignored) and
   * returns what was charged: always `actual`. Usage beyond the reservation is drawn from the
   * hold's spare quota, then from the balance with the next batch, even below zero. No await:
   * the record is queued before this returns.
   */
  async settle(reservation: Reservation, actual: bigint, record: UsageRecord): Promise<bigint> {
    if (reservation.settled) return 0n;
    reservation.settled = true;
    const hold = reservation.hold;
    if (actual < 0n) actual = 0n;
    const charged = actual;
    const over = actual - reservation.amount;
    if (over <= 0n) hold.available -= over;
    else {
      // This request's own excess: from what the hold has spare, claimed at once so that
      // concurrent settles never count the same units, then from the balance.
      const fromHold = hold.available > over ? over : hold.available > 0n ? hold.available : 0n;
      hold.available -= fromHold;
      const overrun = over - fromHold;
      if (overrun > 0n) {
        hold.amount += overrun;
        this.pendingOverrun.set(hold, (this.pendingOverrun.get(hold) ?? 0n) + overrun);
      }
    }
    hold.inflight--;
    hold.lastUsed = Date.now();
    hold.unflushed += charged;
    addTo(this.pendingConsumed, hold, charged);
    record.charged = charged;
    if (record.log && !record.failed) record.log.quota = charged;
    this.pending.push(record);
    if (this.pending.length >= this.options.flushBatch) void this.flush();
    if (hold.inflight === 0 && hold.available === 0n && hold.owner && !hold.acquiring) {
      // A tight hold that is used up: close it now rather than waiting for idleness.
      const closing = this.flush().then(() => this.closeIfIdle(hold, true));
      this.closings.add(closing);
      void closing.finally(() => this.closings.delete(closing));
    }
    return charged;
  }

  /** Writes settled usage: log rows, counters and holds' `consumed`, in one transaction. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.pending.length ? this.flush() : undefined));
    // Open holds whose in-flight total changed since it was last written.
    const reserved = new Map<Hold, bigint>();
    for (const hold of this.holds.values()) {
      if (!hold.id || hold.gone) continue;
      const r = reservedOf(hold);
      if (r !== hold.writtenReserved) reserved.set(hold, r);
    }
    if (!this.pending.length && !this.pendingConsumed.size && !this.pendingOverrun.size && !reserved.size) return Promise.resolve();
    const batch: Batch = { records: this.pending, consumed: this.pendingConsumed, overrun: this.pendingOverrun, reserved };
    this.pending = [];
    this.pendingConsumed = new Map();
    this.pendingOverrun = new Map();
    this.flushing = this.write(batch)
      .then((closed) => {
        for (const [hold, amount] of batch.consumed) {
          hold.unflushed -= amount;
          if (!closed.has(hold)) hold.consumed += amount;
        }
        for (const [hold, r] of reserved) hold.writtenReserved = r;
        for (const hold of closed) if (!hold.gone) this.retire(hold);
      })
      .catch((error) => {
        // Put the work back; the next tick retries it. Holds keep the money safe meanwhile.
        this.reportFlushFailure(error);
        this.pending = batch.records.concat(this.pending);
        for (const [hold, amount] of batch.consumed) addTo(this.pendingConsumed, hold, amount);
        for (const [hold, amount] of batch.overrun) addTo(this.pendingOverrun, hold, amount);
      })
      .finally(() => {
        this.flushing = null;
      });
    return this.flushing;
  }

  /** Holds open now (taken, not closed) and the quota they hold beyond what is spent: the metrics' gauges. */
  holdStats(): { open: number; quota: number } {
    let open = 0;
    let quota = 0n;
    for (const hold of this.holds.values()) {
      if (!hold.id || hold.gone) continue;
      open++;
      quota += hold.amount - hold.consumed - hold.unflushed;
    }
    return { open, quota: Number(quota) };
  }

  private busySince = 0;
  private busyCount = 0;

  /**
   * SQLite admits one writer at a time, and several processes (relay workers, the console) share
   * the file: a batch that finds it locked longer than the direct connection waits (a few seconds)
   * goes out with a later tick. That is routine, so it is summarised once a minute instead of
   * logged each time; anything else is logged as it comes.
   */
  private reportFlushFailure(error: unknown) {
    billingWriteFailed();
    if (String((error as { code?: unknown })?.code).startsWith("SQLITE_BUSY")) {
      const now = Date.now();
      if (now - this.busySince >= 60_000) {
        if (this.busyCount) log.warn({ batches: this.busyCount }, "database busy: batches in the last minute waited for the next flush");
        this.busySince = now;
        this.busyCount = 0;
      }
      this.busyCount++;
      return;
    }
    log.error({ err: error }, "flush failed, will retry");
  }

  /** Writes a batch in one transaction; resolves to the holds found closed (charged directly). */
  private async write({ records, consumed, overrun, reserved }: Batch): Promise<Set<Hold>> {
    const now = nowSeconds();
    const users = new Map<number, { quota: bigint; count: number; debit: bigint }>();
    const tokens = new Map<number, { quota: bigint; debit: bigint }>();
    const channels = new Map<number, bigint>();
    const channelKeys = new Map<string, { channelId: number; hash: string; quota: bigint; count: number }>();
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
      const u = users.get(r.userId) ?? { quota: 0n, count: 0, debit: 0n };
      u.quota += quota;
      u.count++;
      users.set(r.userId, u);
      if (r.tokenId) {
        const t = tokens.get(r.tokenId) ?? { quota: 0n, debit: 0n };
        t.quota += quota;
        tokens.set(r.tokenId, t);
      }
      if (r.channelId) channels.set(r.channelId, (channels.get(r.channelId) ?? 0n) + quota);
      if (r.channelId && r.channelKeyHash) addKeyUsage(channelKeys, r.channelId, r.channelKeyHash, quota);
      if (r.log) logs.push(r.log);
      if (r.bucket) {
        const key = `${r.userId}\0${r.modelName}\0${r.bucket.createdAt}`;
        const b = buckets.get(key) ?? {
          user_id: r.userId,
          username: r.bucket.username,
          model_name: r.modelName,
          created_at: r.bucket.createdAt,
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
    // Overruns leave the balance (and a limited token's remain_quota) in the users and tokens
    // statements, so those rows are locked first, as the lock order wants.
    for (const [hold, amount] of overrun) {
      const { userId, tokenId } = hold.owner;
      const u = users.get(userId) ?? { quota: 0n, count: 0, debit: 0n };
      u.debit += amount;
      users.set(userId, u);
      if (tokenId) {
        const t = tokens.get(tokenId) ?? { quota: 0n, debit: 0n };
        t.debit += amount;
        tokens.set(tokenId, t);
      }
    }
    const k = this.db.kind;
    const statements: Statement[] = [];
    // The lock order of the header: users, tokens, quota_holds, channels, channel_keys, ids ascending.
    for (const [id, u] of sortById(users))
      statements.push({
        sql: "UPDATE users SET used_quota = used_quota + ?, request_count = request_count + ?, quota = quota - ? WHERE id = ?",
        params: [u.quota, u.count, u.debit, id],
      });
    for (const [id, t] of sortById(tokens))
      statements.push({
        sql: "UPDATE tokens SET used_quota = used_quota + ?, remain_quota = remain_quota - ?, accessed_time = ? WHERE id = ?",
        params: [t.quota, t.debit, now, id],
      });
    const holdRows = new Map<string, { hold: Hold; consumed: bigint; overrun: bigint }>();
    const rowOf = (hold: Hold) => {
      let row = holdRows.get(hold.id!);
      if (!row) holdRows.set(hold.id!, (row = { hold, consumed: 0n, overrun: 0n }));
      return row;
    };
    for (const [hold, amount] of consumed) if (hold.id && amount) rowOf(hold).consumed += amount;
    for (const [hold, amount] of overrun) if (hold.id) rowOf(hold).overrun += amount;
    for (const hold of reserved.keys()) rowOf(hold);
    const holdAt = new Map<number, Hold>();
    for (const [id, row] of [...holdRows].sort(byFirst)) {
      const { hold } = row;
      // A hold closed under us (recovery refunded `amount - consumed` without this usage): the
      // usage not already taken as an overrun comes straight from the balance. Those rows are
      // already locked by this transaction's users/tokens statements.
      const direct = row.consumed - row.overrun;
      const ifNone: Statement[] = [];
      if (direct > 0n) {
        ifNone.push({ sql: "UPDATE users SET quota = quota - ? WHERE id = ?", params: [direct, hold.owner.userId] });
        if (hold.owner.tokenId)
          ifNone.push({ sql: "UPDATE tokens SET remain_quota = remain_quota - ? WHERE id = ?", params: [direct, hold.owner.tokenId] });
      }
      holdAt.set(statements.length, hold);
      statements.push({
        sql: "UPDATE quota_holds SET amount = amount + ?, consumed = consumed + ?, reserved = ?, updated_at = ? WHERE id = ? AND state = 0",
        params: [row.overrun, row.consumed, reserved.get(hold) ?? reservedOf(hold), now, id],
        ifNone,
      });
    }
    for (const [id, q] of sortById(channels))
      statements.push({ sql: "UPDATE channels SET used_quota = used_quota + ? WHERE id = ?", params: [q, id] });
    for (const [, c] of [...channelKeys].sort(byFirst))
      statements.push({
        sql: channelKeyUsageUpsert(k),
        params: k === "mysql" ? [c.hash, c.quota, c.count, c.channelId, c.quota, c.count] : [c.hash, c.quota, c.count, c.channelId],
      });
    if (!this.logDb) statements.push(...logInsertStatements(k, logs));
    for (const [, b] of [...buckets].sort(byFirst))
      statements.push({
        sql: quotaDataUpsert(k),
        params: [b.user_id, b.username, b.model_name, b.created_at, b.token_used, b.count, b.quota],
      });
    const closed = new Set<Hold>();
    if (statements.length) for (const i of (await this.db.transaction(statements)).missed) closed.add(holdAt.get(i)!);
    if (this.logDb) await this.writeLogs(logs);
    return closed;
  }

  /**
   * The batch's log rows on the log database, after the batch committed. They never fail the batch
   * (its money is written): rows the log database refuses wait in memory, up to MAX_UNWRITTEN_LOGS,
   * and go with the next batch.
   */
  private async writeLogs(rows: LogRow[]): Promise<void> {
    const all = this.unwrittenLogs.length ? this.unwrittenLogs.concat(rows) : rows;
    if (!all.length || !this.logDb) return;
    this.unwrittenLogs = [];
    try {
      await this.logDb.transaction(logInsertStatements(this.logDb.kind, all));
    } catch (error) {
      const kept = all.slice(-MAX_UNWRITTEN_LOGS);
      const dropped = all.length - kept.length;
      this.unwrittenLogs = kept;
      log.error({ err: error, kept: kept.length, dropped }, "log database write failed; rows kept for the next batch");
    }
  }

  private async tick() {
    await this.flush();
    if (this.unwrittenLogs.length && !this.flushing) await this.writeLogs([]);
    for (const hold of [...this.unclosed]) await this.finishClose(hold);
    const now = Date.now();
    for (const hold of [...this.holds.values()]) {
      const idle = now - hold.lastUsed > this.options.idleSeconds * 1000;
      const old = now - hold.openedAt > this.options.maxAgeSeconds * 1000;
      if (idle || old) await this.closeIfIdle(hold, true); // not while requests are in flight on it
    }
    // Every hold still in use is refreshed well within staleSeconds, idle or not (a request may
    // stream for longer than that), so recovery never takes a live one.
    const heartbeat: string[] = [];
    for (const hold of this.holds.values()) if (hold.id) heartbeat.push(hold.id);
    for (const hold of this.unclosed) if (hold.id) heartbeat.push(hold.id);
    if (heartbeat.length && now - this.lastHeartbeat > (this.options.staleSeconds * 1000) / 4) {
      this.lastHeartbeat = now;
      const ts = nowSeconds();
      for (let i = 0; i < heartbeat.length; i += HEARTBEAT_CHUNK) {
        const ids = heartbeat.slice(i, i + HEARTBEAT_CHUNK);
        await this.db
          .execute(`UPDATE quota_holds SET updated_at = ? WHERE state = 0 AND id IN (${ids.map(() => "?").join(", ")})`, [ts, ...ids])
          .catch(() => undefined);
      }
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
      log.error({ err: error, holdId: hold.id }, "closing a hold failed, will retry");
    }
  }

  /**
   * Writes everything and returns all unused quota; for shutdown. Requests still in flight lose
   * their reservations to the refund; any of them settled before the last batch is charged to
   * the balance directly (its hold is closed by then).
   */
  close(): Promise<void> {
    // Once: a worker's shutdown may ask twice (its grace timer and the server's close callback).
    this.closeRun ??= this.closeOnce();
    return this.closeRun;
  }
  private closeRun: Promise<void> | null = null;

  private async closeOnce(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    // Whole answers settle on the next turn (after being written): let those of this turn in.
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all(this.closings);
    await this.flush();
    for (const hold of [...this.holds.values()]) {
      hold.inflight = 0;
      await this.closeIfIdle(hold, true);
    }
    for (const hold of [...this.unclosed]) await this.finishClose(hold);
    await this.flush();
    await this.writeLogs([]);
    if (this.unwrittenLogs.length) log.error({ rows: this.unwrittenLogs.length }, "log rows not written to the log database");
    if (this.unclosed.size) log.error({ holds: this.unclosed.size }, "holds left open; the next start settles them");
  }

  /** For tests and metrics. */
  get openHolds(): number {
    return this.holds.size;
  }
}

/** Hold ids per heartbeat statement. */
const HEARTBEAT_CHUNK = 200;

type Batch = {
  records: UsageRecord[];
  consumed: Map<Hold, bigint>;
  overrun: Map<Hold, bigint>;
  /** Open holds whose in-flight total changed: the value to write. */
  reserved: Map<Hold, bigint>;
};

function addTo<K>(map: Map<K, bigint>, key: K, amount: bigint) {
  map.set(key, (map.get(key) ?? 0n) + amount);
}

/** Adds to a usage bucket, creating it on first use: one atomic statement, however many instances write. */
/** A multi-key channel's key: the batch's quota and requests on it, one upsert per key (lib/channels/key-state.ts). */
function addKeyUsage(
  into: Map<string, { channelId: number; hash: string; quota: bigint; count: number }>,
  channelId: number,
  hash: string,
  quota: bigint,
) {
  const key = `${String(channelId).padStart(10, "0")}:${hash}`;
  const c = into.get(key) ?? { channelId, hash, quota: 0n, count: 0 };
  c.quota += quota;
  c.count++;
  into.set(key, c);
}

/**
 * Adds one batch's quota and request count to a multi-key channel's key row, created when missing;
 * nothing when the channel was deleted meanwhile (a row for it would fail its foreign key, and
 * with it the whole batch). Params: key_hash, quota, count, channel id (MySQL: quota and count again).
 */
function channelKeyUsageUpsert(kind: DbKind): string {
  const cast = kind === "postgresql" ? ["?::bigint", "?::integer"] : ["?", "?"];
  const head = `INSERT INTO channel_keys (channel_id, key_hash, used_quota, request_count) SELECT id, ?, ${cast.join(", ")} FROM channels WHERE id = ?`;
  if (kind === "mysql")
    return `${head} ON DUPLICATE KEY UPDATE used_quota = channel_keys.used_quota + ?, request_count = channel_keys.request_count + ?`;
  return `${head} ON CONFLICT (channel_id, key_hash) DO UPDATE SET used_quota = channel_keys.used_quota + excluded.used_quota, request_count = channel_keys.request_count + excluded.request_count`;
}

function quotaDataUpsert(kind: DbKind): string {
  const q = (n: string) => quoteIdent(kind, n);
  const cols = ["user_id", "username", "model_name", "created_at", "token_used", "count", "quota"].map(q).join(", ");
  const head = `INSERT INTO ${q("quota_data")} (${cols}) VALUES (?, ?, ?, ?, ?, ?, ?)`;
  const sums = ["token_used", "count", "quota"];
  if (kind === "mysql") return `${head} ON DUPLICATE KEY UPDATE ${sums.map((c) => `${q(c)} = ${q(c)} + VALUES(${q(c)})`).join(", ")}`;
  return `${head} ON CONFLICT (${q("user_id")}, ${q("model_name")}, ${q("created_at")}) DO UPDATE SET ${sums.map((c) => `${q(c)} = ${q("quota_data")}.${q(c)} + excluded.${q(c)}`).join(", ")}`;
}

function newHoldId(): string {
  return `${Date.now().toString(36)}-${randomBytes(8).toString("hex")}`;
}

/**
 * Closes a hold exactly once, returning `amount - consumed` to the user and the token. The refund
 * is written before the hold's state changes (the lock order), and the state change is conditional
 * on the amounts read: if another closer or a flush got there first, the transaction rolls back
 * and the hold is read again.
 */
export async function closeHold(db: DirectDb, id: string): Promise<bigint> {
  for (;;) {
    const [hold] = await db.query("SELECT user_id, token_id, amount, consumed, state FROM quota_holds WHERE id = ?", [id]);
    if (!hold || int(hold.state) !== 0) return 0n;
    const userId = int(hold.user_id);
    const tokenId = int(hold.token_id);
    const amount = big(hold.amount);
    const consumed = big(hold.consumed);
    const refund = amount - consumed;
    const statements: Statement[] = [];
    if (refund > 0n) {
      statements.push({ sql: "UPDATE users SET quota = quota + ? WHERE id = ?", params: [refund, userId] });
      if (tokenId) statements.push({ sql: "UPDATE tokens SET remain_quota = remain_quota + ? WHERE id = ?", params: [refund, tokenId] });
    }
    // Another closer or a flush got there first: nothing is written, read the hold again.
    statements.push({
      sql: "UPDATE quota_holds SET state = 1 WHERE id = ? AND state = 0 AND amount = ? AND consumed = ?",
      params: [id, amount, consumed],
      required: true,
    });
    const { failed } = await retryConflicts(() => db.transaction(statements));
    if (failed < 0) return refund;
  }
}

/** Map entries in key order: the lock order's "ids ascending". */
const byFirst = (a: readonly [number | string, unknown], b: readonly [number | string, unknown]) =>
  a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
const sortById = <V>(m: Map<number, V>) => [...m].sort(byFirst);

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
export async function recoverHolds(db: DirectDb, staleSeconds: number): Promise<number> {
  const before = nowSeconds() - staleSeconds;
  const stale = await db.query("SELECT id FROM quota_holds WHERE state = 0 AND updated_at < ?", [before]);
  let n = 0;
  for (const row of stale) if ((await closeHold(db, str(row.id))) >= 0n) n++;
  return n;
}
