// The product's modules import each other without circles (type-only imports count too): a circle
// makes load order matter and hides which module owns a rule.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const SOURCE = /\.(ts|tsx)$/;
const SKIP = /(^|\/)(generated|node_modules|__fixtures__)(\/|$)|\.test\.ts$/;
const IMPORT = /(?:import|export)\s[^'"]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (SKIP.test(rel)) continue;
    if (entry.isDirectory()) out.push(...sources(rel));
    else if (SOURCE.test(entry.name)) out.push(rel);
  }
  return out;
}

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

describe("module imports", () => {
  it("form no circles in lib/, app/, components/ and the server entry", () => {
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
    expect(graph.size).toBeGreaterThan(100);
    expect(circles(graph)).toEqual([]);
  });
});
