// Stream events a converter does not know (a vendor added a type, or sent one out of turn): each
// converter's event switch ends here, so a new event is counted and visible rather than dropped unseen.

const counts = new Map<string, number>();

/** Counts one event of `type` from `vendor` that its converter skipped. */
export function countUnknownEvent(vendor: string, type: string): void {
  const key = `${vendor}:${type}`;
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** The unknown events seen so far, by `vendor:type`. */
export function unknownEventCounts(): ReadonlyMap<string, number> {
  return counts;
}
