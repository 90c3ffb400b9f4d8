/** BigInt quota columns cross the API as JSON numbers (exact below 2^53 units, i.e. $18 billion). */
export const num = (v: bigint | number | null | undefined): number => (v == null ? 0 : Number(v));

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Largest value an Int column holds (32-bit on PostgreSQL and MySQL): ids, unix-second times, counts. */
export const INT_COLUMN_MAX = 2_147_483_647;
