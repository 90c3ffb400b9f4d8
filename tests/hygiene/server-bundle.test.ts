// The server bundle `npm start` runs (scripts/build.mjs), built here with the same options, read
// through esbuild's metafile: which code and packages each role's process loads. A relay worker
// must load neither Next nor Prisma (its database work goes through the drivers, lib/db/direct.ts).
import os from "node:os";
import path from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import esbuild, { type Metafile } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverBundleOptions } from "@/scripts/server-bundle.mjs";

const root = path.resolve(import.meta.dirname, "../..");

type Loaded = { inputs: Set<string>; packages: Set<string> };

/**
 * What a process loads from `chunk` on: the chunks it imports statically, their source files and
 * the packages they import. With `dynamic`, also everything behind dynamic imports (what it could load).
 */
function loadedFrom(meta: Metafile, chunks: string[], dynamic = false): Loaded {
  const seen = new Set<string>();
  const loaded: Loaded = { inputs: new Set(), packages: new Set() };
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const output = meta.outputs[file]!;
    for (const input of Object.keys(output.inputs)) loaded.inputs.add(input);
    for (const imp of output.imports) {
      if (imp.kind === "dynamic-import" && !dynamic) continue;
      if (imp.external) loaded.packages.add(imp.path);
      else visit(imp.path);
    }
  };
  for (const chunk of chunks) visit(chunk);
  return loaded;
}

const isPrisma = (loaded: Loaded) =>
  [...loaded.packages].some((p) => p.startsWith("@prisma/")) || [...loaded.inputs].some((i) => i.startsWith("lib/db/generated/"));

describe("the server bundle", () => {
  let meta: Metafile;
  let outdir: string;
  /** The output chunk holding a source file. */
  const chunkOf = (input: string) => {
    const found = Object.entries(meta.outputs).find(([file, o]) => file.endsWith(".mjs") && input in o.inputs);
    if (!found) throw new Error(`${input} is in no chunk`);
    return found[0];
  };
  const entry = () => Object.keys(meta.outputs).find((f) => f.endsWith("/server.mjs"))!;

  beforeAll(async () => {
    outdir = mkdtempSync(path.join(os.tmpdir(), "qiao-bundle-"));
    const result = await esbuild.build({
      ...serverBundleOptions(root, outdir),
      absWorkingDir: root,
      metafile: true,
      write: false,
      logLevel: "silent",
    });
    meta = result.metafile!;
    // Paths relative to the project, as the metafile names its inputs.
    meta.outputs = Object.fromEntries(Object.entries(meta.outputs).map(([f, o]) => [path.relative(root, path.resolve(root, f)), o]));
    for (const o of Object.values(meta.outputs))
      for (const imp of o.imports) if (!imp.external) imp.path = path.relative(root, path.resolve(root, imp.path));
  });
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it("loads neither Prisma nor Next in a relay worker", () => {
    // A worker runs the entry, then imports its role's chunk (server.ts), and what that imports.
    const worker = loadedFrom(meta, [entry(), chunkOf("lib/server/relay-worker.ts")]);
    expect(worker.inputs).toContain("lib/relay/call/pipeline.ts");
    expect(worker.inputs).toContain("lib/db/direct.ts");
    expect(worker.packages).toContain("undici");
    expect(isPrisma(worker)).toBe(false);
    expect([...worker.packages].filter((p) => p === "next" || p.startsWith("next/"))).toEqual([]);
    expect(worker.inputs).not.toContain("lib/db/index.ts");
    // The shared cache's client loads at its first command (lib/cache/shared.ts), if ever.
    expect(worker.packages).not.toContain("redis");
  });

  it("reaches Prisma from a relay worker's code only through the guarded import in getDirectDb", () => {
    // Source files, not chunks: which file imports what, and how.
    const closure = (starts: string[], dynamic: boolean) => {
      const seen = new Set<string>();
      const packages = new Set<string>();
      const visit = (file: string) => {
        if (seen.has(file)) return;
        seen.add(file);
        for (const imp of meta.inputs[file]?.imports ?? []) {
          if (imp.kind === "dynamic-import" && !dynamic) continue;
          if (imp.external) packages.add(imp.path);
          else visit(imp.path);
        }
      };
      for (const start of starts) visit(start);
      return { inputs: seen, packages };
    };
    const worker = closure(["lib/server/relay-worker.ts"], false);
    expect(isPrisma(worker)).toBe(false);
    // Every dynamic import in the worker's code that can lead to Prisma.
    const toPrisma: string[] = [];
    for (const file of worker.inputs)
      for (const imp of meta.inputs[file]?.imports ?? [])
        if (imp.kind === "dynamic-import" && (imp.external ? imp.path.startsWith("@prisma/") : isPrisma(closure([imp.path], true))))
          toPrisma.push(`${file} → ${imp.path}`);
    // The one: getDirectDb() prepares the database through Prisma in processes that were not told
    // it is prepared (skipDatabasePreparation, which a relay worker calls before any query).
    expect(toPrisma).toEqual(["lib/db/direct.ts → lib/db/index.ts"]);
  });

  it("keeps Prisma and Next out of the primary, and Prisma in the console", () => {
    const primary = loadedFrom(meta, [entry(), chunkOf("lib/server/primary.ts")]);
    expect(isPrisma(primary)).toBe(false);
    expect(primary.packages).not.toContain("next");
    const console = loadedFrom(meta, [entry(), chunkOf("lib/server/console.ts")], true);
    expect(isPrisma(console)).toBe(true);
    expect(console.packages).toContain("next");
  });
});
