// A hash of every source file the production build depends on, so `npm start` rebuilds only
// when the sources changed since the last build.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
/** Where scripts/build.mjs writes the server entry that `npm start` runs (relative to the root). */
export const SERVER_BUNDLE = ".next/qiao/server.mjs";
const DIRS = ["app", "components", "lib", "prisma", "public", "server"];
const FILES = [
  "package.json",
  "package-lock.json",
  "next.config.ts",
  "proxy.ts",
  "tsconfig.json",
  "server.ts",
  "scripts/build.mjs",
  "scripts/server-bundle.mjs",
];
const SKIP = new Set(["generated", "node_modules"]);

function walk(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (SKIP.has(e.name)) continue;
    const full = path.join(dir, e.name);
    if (e.isDirectory()) walk(full, out);
    else if (!/\.test\.tsx?$/.test(e.name)) out.push(full);
  }
}

export function buildFingerprint() {
  const files = [];
  for (const d of DIRS) walk(path.join(root, d), files);
  for (const f of FILES) files.push(path.join(root, f));
  const hash = createHash("sha256");
  for (const f of files.sort()) {
    try {
      statSync(f);
      hash.update(path.relative(root, f)).update("\0").update(readFileSync(f)).update("\0");
    } catch {
      /* optional file absent */
    }
  }
  return hash.digest("hex");
}
