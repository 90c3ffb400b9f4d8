// The money of a task: charged once when it is submitted, refunded at most once when it fails.
//
// A task's price is known before the vendor is asked (ModelPrice per call, or per second of
// video), and what is charged must be on the task's row for the refund to know what to return. So
// the charge and the row are one transaction, written before the vendor is asked:
//   UPDATE users  SET quota = quota - q … WHERE id = ? AND quota >= q          (required)
//   UPDATE tokens SET remain_quota = remain_quota - q … WHERE id = ? AND remain_quota >= q   (required)
//   INSERT the task row (status "", submitting)
// the same conditional updates and lock order (users, tokens, channels, inserts) as the relay's
// ledger (lib/billing/ledger.ts), so concurrent submits on any number of instances never overdraw,
// and a crash anywhere leaves either nothing or a charged row that the poller fails and refunds.
// When the vendor accepts, acceptTask writes its id, the channel's used total (the channel that
// accepted: a submit may try several) and the consume log row; when it refuses, refundTask returns
// the charge (no log: nothing was billed).
//
// refundTask is the only way a row becomes FAILURE. Its first statement moves the row from an open
// status to FAILURE and must match: a second refund (two pollers, a poller and a late answer, a
// restart mid-poll) matches nothing and the whole transaction rolls back, so the quota comes back
// once. It returns the quota to the user and what was taken from the key's remain_quota (none for
// an unlimited key: the row keeps both), and takes it back out of the used totals; the request
// count keeps the call.
import { type DirectDb, getDirectDb, type Statement } from "@/lib/db/direct";
import { big, int, nowSeconds, str } from "@/lib/db/num";
import { retryConflicts } from "@/lib/billing/ledger";
import { type LogRow, quoteIdent, transactionWithLogs } from "@/lib/logs/insert";
import { LOG_TYPE } from "@/lib/logs/write";
import { FINAL_STATUSES, TASK_STATUS, type TaskTable } from "@/lib/tasks/types";

/** Column values of a task row. */
export type TaskColumns = Readonly<Record<string, string | number | bigint>>;

export type TaskCharge = {
  table: TaskTable;
  /** The submit's request id: stored on the row and its log rows. */
  requestId: string;
  userId: number;
  /** The key that submits (0: none). */
  keyId: number;
  /** Whether the key has a limit: its remain_quota pays too. */
  keyLimited: boolean;
  channelId: number;
  quota: bigint;
  /** The row's other columns (platform, action, prompt, submit_time…). */
  columns: TaskColumns;
};

export type ChargeResult = { ok: true; id: number } | { ok: false; shortfall: "user" | "token" };

const q = (db: DirectDb, name: string) => quoteIdent(db.kind, name);

/** Open statuses: the row may still move. `AND status NOT IN (…)` with these as parameters. */
const OPEN = `status NOT IN (${FINAL_STATUSES.map(() => "?").join(", ")})`;

/** Charges a submit and inserts its row (status "", submitting), in one transaction. */
export async function chargeTask(c: TaskCharge, db?: DirectDb): Promise<ChargeResult> {
  const d = db ?? (await getDirectDb());
  const now = nowSeconds();
  const statements: Statement[] = [];
  // A free task (inpaint, custom zoom) charges nothing and needs no balance.
  const paid = c.quota > 0n;
  statements.push({
    sql: `UPDATE users SET quota = quota - ?, used_quota = used_quota + ?, request_count = request_count + 1 WHERE id = ?${paid ? " AND quota >= ?" : ""}`,
    params: paid ? [c.quota, c.quota, c.userId, c.quota] : [0n, 0n, c.userId],
    required: true,
  });
  const tokenAt = statements.length;
  const fromKey = c.keyId && c.keyLimited ? c.quota : 0n;
  if (fromKey > 0n) {
    statements.push({
      sql: "UPDATE tokens SET remain_quota = remain_quota - ?, used_quota = used_quota + ?, accessed_time = ? WHERE id = ? AND remain_quota >= ?",
      params: [fromKey, c.quota, now, c.keyId, fromKey],
      required: true,
    });
  } else if (c.keyId) {
    statements.push({
      sql: "UPDATE tokens SET used_quota = used_quota + ?, accessed_time = ? WHERE id = ?",
      params: [c.quota, now, c.keyId],
    });
  }
  const columns: Record<string, string | number | bigint> = {
    ...c.columns,
    user_id: c.userId,
    channel_id: c.channelId,
    token_id: c.keyId,
    token_quota: fromKey,
    quota: c.quota,
    request_id: c.requestId,
    status: TASK_STATUS.submitting,
  };
  const names = Object.keys(columns);
  statements.push({
    sql: `INSERT INTO ${q(d, c.table)} (${names.map((n) => q(d, n)).join(", ")}) VALUES (${names.map(() => "?").join(", ")})`,
    params: names.map((n) => columns[n]),
  });
  const { failed } = await retryConflicts(() => d.transaction(statements));
  if (failed >= 0) return { ok: false, shortfall: failed === tokenAt && fromKey > 0n ? "token" : "user" };
  const [row] = await d.query(`SELECT id FROM ${q(d, c.table)} WHERE request_id = ? ORDER BY id DESC`, [c.requestId]);
  return { ok: true, id: int(row?.id) };
}

/**
 * The vendor accepted a charged submit: the row takes its id and status, and the consume log row
 * is written, in one transaction (the log row after it, on LOG_SQL_DSN's database when set). False when the row is no longer submitting (the poller gave up
 * on it and refunded it: it waited far longer than any submit takes).
 */
export async function acceptTask(
  table: TaskTable,
  id: number,
  accepted: { channelId: number; quota: bigint; columns: TaskColumns },
  log: LogRow | null,
  db?: DirectDb,
): Promise<boolean> {
  const d = db ?? (await getDirectDb());
  const columns: Record<string, string | number | bigint> = { ...accepted.columns, channel_id: accepted.channelId };
  const names = Object.keys(columns);
  const statements: Statement[] = [];
  // The lock order: channels, then the task row and the log row.
  if (accepted.quota > 0n)
    statements.push({ sql: "UPDATE channels SET used_quota = used_quota + ? WHERE id = ?", params: [accepted.quota, accepted.channelId] });
  statements.push({
    sql: `UPDATE ${q(d, table)} SET ${names.map((n) => `${q(d, n)} = ?`).join(", ")} WHERE id = ? AND status = ?`,
    params: [...names.map((n) => columns[n]), id, TASK_STATUS.submitting],
    required: true,
  });
  const { failed } = await retryConflicts(() => transactionWithLogs(d, statements, log ? [log] : []));
  return failed < 0;
}

export type Refund = {
  /** Why it failed: the row's fail_reason. */
  reason: string;
  /** The system log row's text for a refund of `quota` ("构图失败 …，补偿 …"); none: no log row (a refused submit, never billed). */
  logContent?: (quota: bigint) => string;
  /** Other columns to write with the failure (the vendor's code, its answer…). */
  columns?: TaskColumns;
  /** Milliseconds; default now. */
  finishTime?: number;
};

/**
 * Fails an open task and returns its charge to the user and the key, exactly once. Resolves to the
 * quota returned, or null when the task was already finished or failed (nothing written).
 */
export async function refundTask(table: TaskTable, id: number, refund: Refund, db?: DirectDb): Promise<bigint | null> {
  const d = db ?? (await getDirectDb());
  for (;;) {
    const [row] = await d.query(
      `SELECT user_id, token_id, token_quota, channel_id, quota, status, request_id FROM ${q(d, table)} WHERE id = ?`,
      [id],
    );
    const status = str(row?.status);
    if (!row || FINAL_STATUSES.includes(status)) return null;
    const userId = int(row.user_id);
    const tokenId = int(row.token_id);
    const tokenQuota = big(row.token_quota);
    const channelId = int(row.channel_id);
    const quota = big(row.quota);
    const columns: Record<string, string | number | bigint> = {
      ...refund.columns,
      status: TASK_STATUS.failure,
      progress: "100%",
      fail_reason: refund.reason,
      finish_time: refund.finishTime ?? Date.now(),
    };
    const names = Object.keys(columns);
    // Conditional on the status read: a row that moved meanwhile (accepted, updated by a poll,
    // refunded by another instance) is read again.
    const statements: Statement[] = [
      {
        sql: `UPDATE ${q(d, table)} SET ${names.map((n) => `${q(d, n)} = ?`).join(", ")} WHERE id = ? AND status = ?`,
        params: [...names.map((n) => columns[n]), id, status],
        required: true,
      },
    ];
    if (quota > 0n) {
      statements.push({
        sql: "UPDATE users SET quota = quota + ?, used_quota = used_quota - ? WHERE id = ?",
        params: [quota, quota, userId],
      });
      if (tokenId)
        statements.push({
          sql: "UPDATE tokens SET remain_quota = remain_quota + ?, used_quota = used_quota - ? WHERE id = ?",
          params: [tokenQuota, quota, tokenId],
        });
      // Only an accepted task added to its channel's used total (acceptTask).
      if (channelId && status !== TASK_STATUS.submitting)
        statements.push({ sql: "UPDATE channels SET used_quota = used_quota - ? WHERE id = ?", params: [quota, channelId] });
    }
    const logs: LogRow[] = [];
    if (refund.logContent && quota > 0n) {
      const [user] = await d.query("SELECT username FROM users WHERE id = ?", [userId]);
      logs.push({
        user_id: userId,
        created_at: nowSeconds(),
        type: LOG_TYPE.system,
        content: refund.logContent(quota),
        username: str(user?.username),
        token_name: "",
        model_name: "",
        quota,
        prompt_tokens: 0,
        completion_tokens: 0,
        use_time: 0,
        is_stream: false,
        channel_id: channelId,
        token_id: tokenId,
        group: "",
        request_id: str(row.request_id),
        other: "",
      });
    }
    const { failed } = await retryConflicts(() => transactionWithLogs(d, statements, logs));
    if (failed < 0) return quota;
  }
}

/**
 * Writes what a poll learnt about an open task that has not failed: its status, progress, times
 * and columns. Never touches a finished or failed row. False when the row was no longer open.
 */
export async function updateTask(table: TaskTable, id: number, columns: TaskColumns, db?: DirectDb): Promise<boolean> {
  const d = db ?? (await getDirectDb());
  if (columns.status === TASK_STATUS.failure) throw new Error("a failure goes through refundTask");
  const names = Object.keys(columns);
  if (!names.length) return true;
  const n = await d.execute(`UPDATE ${q(d, table)} SET ${names.map((c) => `${q(d, c)} = ?`).join(", ")} WHERE id = ? AND ${OPEN}`, [
    ...names.map((c) => columns[c]),
    id,
    ...FINAL_STATUSES,
  ]);
  return n > 0;
}
