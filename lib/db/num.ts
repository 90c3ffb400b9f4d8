/** BigInt quota columns cross the API as JSON numbers (exact below 2^53 units, i.e. $18 billion). */
export const num = (v: bigint | number | null | undefined): number => (v == null ? 0 : Number(v));

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Largest value an Int column holds (32-bit on PostgreSQL and MySQL): ids, unix-second times, counts. */
export const INT_COLUMN_MAX = 2_147_483_647;

// Column values as the drivers return them (lib/db/direct.ts): SQLite gives every integer as a
// bigint, pg BIGINT as bigint and sums as decimal strings, mariadb INT as number, BIGINT as bigint,
// sums as decimal strings; booleans are 0/1 except on PostgreSQL.

/** An Int column (or a count). */
export const int = (v: unknown): number => (v == null ? 0 : Number(v));

/** A BigInt column (quota) or a sum of one, exactly. */
export const big = (v: unknown): bigint => (v == null ? 0n : typeof v === "bigint" ? v : BigInt(v as string | number));

/** A Boolean column. */
export const bool = (v: unknown): boolean => v === true || v === 1 || v === 1n || v === "1";

/** A String column. */
export const str = (v: unknown): string => (v == null ? "" : String(v));
