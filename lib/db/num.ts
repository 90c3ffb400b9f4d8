/** BigInt quota columns cross the API as JSON numbers (exact below 2^53 units, i.e. $18 billion). */
export const num = (v: bigint | number | null | undefined): number => (v == null ? 0 : Number(v));

export const nowSeconds = () => Math.floor(Date.now() / 1000);
