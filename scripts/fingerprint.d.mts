/** Where scripts/build.mjs writes the server entry that `npm start` runs (relative to the root). */
export const SERVER_BUNDLE: string;

/** A hash of every source file the production build depends on. */
export function buildFingerprint(): string;
