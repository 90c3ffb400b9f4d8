// The server log's lines as this process writes them (lib/log.ts): a spy on the logger's
// destination, which every component's logger shares. The lines are kept, not printed.
import pino from "pino";
import { type MockInstance, vi } from "vitest";
import { logger } from "@/lib/log";

type Destination = { write(line: string): boolean };

/** Spies on the log's writes from now on: each call's first argument is one JSON line. */
export function spyOnLog(): MockInstance<Destination["write"]> {
  const destination = (logger as unknown as Record<symbol, Destination>)[pino.symbols.streamSym]!;
  return vi.spyOn(destination, "write").mockImplementation(() => true);
}

/** The lines a spy saw, parsed. */
export function loggedLines(spy: MockInstance<Destination["write"]>): Record<string, unknown>[] {
  return spy.mock.calls.map(([line]) => JSON.parse(line) as Record<string, unknown>);
}
