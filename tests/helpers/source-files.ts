// The repository's source files below a folder, for the hygiene tests that read the tree as text.
import { readdirSync } from "node:fs";
import path from "node:path";

/** Paths (relative to `root`) of the files below `dir` whose name matches `source`, skipping paths matching `skip`. */
export function sourceFiles(root: string, dir: string, skip: RegExp, source: RegExp): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (skip.test(rel)) continue;
    if (entry.isDirectory()) out.push(...sourceFiles(root, rel, skip, source));
    else if (source.test(entry.name)) out.push(rel);
  }
  return out;
}
