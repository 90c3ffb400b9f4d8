// The plain JSON object: what every decoder of a vendor's or a caller's JSON narrows to first.

export type Obj = Record<string, unknown>;

/** True for a JSON object (not null, not an array). */
export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
