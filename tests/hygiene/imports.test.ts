// The product's modules import each other without circles (type-only imports count too): a circle
// makes load order matter and hides which module owns a rule. They also keep to floors: a module
// imports from its own floor or below, so the leaves (db, net, cache…) never learn about the
// domains built on them, and a reader knows where a rule may live by what it needs.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { sourceFiles } from "@/tests/helpers/source-files";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const SOURCE = /\.(ts|tsx)$/;
const SKIP = /(^|\/)(generated|node_modules|__fixtures__)(\/|$)|\.test\.ts$/;
const IMPORT = /(?:import|export)\s[^'"]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/**
 * The floors, lowest first. A lib/ folder (or a single file at the top of lib/) sits on one floor;
 * app/, components/ and the entry files sit above all of lib/.
 */
const FLOORS: Record<string, string[]> = {
  // Leaves: no rule of the product, only what every floor needs to stand on.
  leaves: [
    "lib/obj.ts",
    "lib/errors.ts",
    "lib/env.ts",
    "lib/singleton.ts",
    "lib/sanitize.ts",
    "lib/log.ts",
    "lib/crypto",
    "lib/db",
    "lib/net",
    "lib/cache",
  ],
  // Who is asking and what the site is set to; the console API's route wrapper and envelope; the
  // request limits' shapes (the options declare them) and counters.
  base: ["lib/auth", "lib/options", "lib/api", "lib/audit", "lib/limits"],
  // The domains, and the browser-side helpers and view rules built on them.
  domains: [
    "lib/billing",
    "lib/users",
    "lib/accounts",
    "lib/tokens",
    "lib/channels",
    "lib/redemptions",
    "lib/logs",
    "lib/mail",
    "lib/data",
    "lib/status",
    "lib/ui",
    "lib/client",
    "lib/payments",
    "lib/playground",
    "lib/metrics",
    // Importing another gateway's database (new-api, one-api) into these domains' rows.
    "lib/import-new-api",
  ],
  // The relay, its tasks (drawing, music, video) and the processes of `npm start`.
  relay: ["lib/relay", "lib/tasks", "lib/server"],
  components: ["components"],
  // Pages, route handlers and the entry files.
  top: ["app", "proxy.ts", "server.ts"],
};

/**
 * The upward imports the house keeps, each with why moving it down would be worse. At most six:
 * a new one means a module is on the wrong floor, not that this list grows.
 */
const UPWARD_ALLOWED: Record<string, string> = {
  "lib/db/prepare.ts -> lib/users/root-account.ts":
    "opening an empty database creates the root account, once per process on the master node",
  "lib/db/prepare.ts -> lib/users/username-keys.ts":
    "opening the database keys the usernames migration 0006 could not key in SQL (its SQL names this file)",
  "lib/net/fetch-url.ts -> lib/options/index.ts":
    "user URLs go through the admin's worker (WorkerUrl, WorkerValidKey) when one is set, read per fetch",
  "lib/channels/manage.ts -> lib/relay/providers/index.ts":
    "a channel cannot be created as, or changed to, a type the relay cannot serve: the provider registry decides",
  "lib/playground/chat.ts -> lib/relay/endpoints.ts": "the playground posts to the relay's own /pg path, one constant",
};

const FLOOR_OF = new Map(Object.values(FLOORS).flatMap((units, floor) => units.map((unit) => [unit, floor] as const)));

/** The floor of a file: its lib/ folder, its lib/ file, or its top-level folder or file. */
function floorOf(file: string): number | undefined {
  const parts = file.split("/");
  const unit = parts[0] === "lib" ? parts.slice(0, 2).join("/") : parts[0]!;
  return FLOOR_OF.get(unit);
}

const sources = (dir: string) => sourceFiles(root, dir, SKIP, SOURCE);

function resolve(spec: string, from: string): string | null {
  const base = spec.startsWith("@/") ? spec.slice(2) : spec.startsWith(".") ? path.join(path.dirname(from), spec) : null;
  if (base === null) return null;
  for (const candidate of [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) {
    if (existsSync(path.join(root, candidate))) return path.normalize(candidate);
  }
  return null;
}

/** Strongly connected components with more than one module (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** Every product module and the modules it imports. */
function importGraph(): Map<string, string[]> {
  const files = [...sources("lib"), ...sources("app"), ...sources("components"), "server.ts", "proxy.ts"];
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const deps: string[] = [];
    for (const m of readFileSync(path.join(root, file), "utf8").matchAll(IMPORT)) {
      const target = resolve(m[1] ?? m[2]!, file);
      if (target) deps.push(target);
    }
    graph.set(file, deps);
  }
  return graph;
}

/** Every import of a module on a higher floor, as "from -> to" (what a failure lists). */
function upwardImports(graph: Map<string, string[]>): string[] {
  const found = new Set<string>();
  for (const [file, deps] of graph) {
    for (const dep of deps) if (floorOf(dep)! > floorOf(file)!) found.add(`${file} -> ${dep}`);
  }
  return [...found].sort();
}

describe("module imports", () => {
  const graph = importGraph();

  it("form no circles in lib/, app/, components/ and the server entry", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(circles(graph)).toEqual([]);
  });

  it("put every module on a floor", () => {
    expect([...graph.keys()].filter((file) => floorOf(file) === undefined)).toEqual([]);
  });

  it("never reach a higher floor, except the few named with their reason", () => {
    expect(Object.keys(UPWARD_ALLOWED).length).toBeLessThanOrEqual(6);
    expect(upwardImports(graph)).toEqual(Object.keys(UPWARD_ALLOWED).sort());
  });
});
