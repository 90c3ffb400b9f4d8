// Which vitest files depend on the main database, found from the sources (no hand list): a file
// does when its imports, followed through the repository's own modules, reach lib/db/kind.ts (the
// one module that reads SQL_DSN: getDb(), the direct connection and everything built on them
// import it), or reach node:child_process (the file starts a server or another process, which
// inherits SQL_DSN). The rest (parsers, converters, pure rules) run the same on any database, and
// so do the files tagged NAMES_ITS_DATABASES (below), which open every database they use by name.
//
// `node scripts/database-tests.mjs` prints the files, one a line, then how many of how many.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const root = path.resolve(import.meta.dirname, "..");

/** The test files vitest.config.ts includes: *.test.ts under lib/ and tests/, not tests/e2e/. */
export function testFiles() {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(path.join(root, dir))) {
      const rel = path.posix.join(dir, name);
      if (name === "node_modules" || rel === "tests/e2e" || rel === "lib/db/generated") continue;
      if (statSync(path.join(root, rel)).isDirectory()) walk(rel);
      else if (name.endsWith(".test.ts")) out.push(rel);
    }
  };
  walk("lib");
  walk("tests");
  return out.sort();
}

const SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']([^"']+)["']/g;
const EXTENSIONS = ["", ".ts", ".tsx", ".mjs", ".js", "/index.ts", "/index.tsx"];

/** The repository file an import names (relative to the root), "node:…" for Node's, or null. */
function resolve(specifier, from) {
  if (specifier.startsWith("node:")) return specifier;
  let base;
  if (specifier.startsWith("@/")) base = specifier.slice(2);
  else if (specifier.startsWith(".")) base = path.posix.join(path.posix.dirname(from), specifier);
  else return null;
  for (const ext of EXTENSIONS) {
    const candidate = base + ext;
    const full = path.join(root, candidate);
    if (existsSync(full) && statSync(full).isFile()) return candidate;
  }
  return null;
}

/** The files `file` imports, statically or with a literal import(). */
function importsOf(file) {
  const text = readFileSync(path.join(root, file), "utf8");
  const out = new Set();
  for (const m of text.matchAll(SPECIFIERS)) {
    const target = resolve(m[1], file);
    if (target) out.add(target === "node:child_process" || target === "child_process" ? "node:child_process" : target);
  }
  return out;
}

/** What makes a file depend on the main database; see the header. */
export const DATABASE_ROOTS = ["lib/db/kind.ts", "node:child_process"];

/**
 * A file that names every database it uses (createTestDatabase, describeOnEveryDatabase: the race
 * tests run on all three already) says so with this tag in a comment. It runs the same whatever
 * the main database, so the PostgreSQL pass leaves it out; tests/setup/env.ts points its main
 * database at one that does not exist, so a file that says so wrongly fails in every pass.
 */
export const NAMES_ITS_DATABASES = "@main-database none";

/** Whether `file` carries the NAMES_ITS_DATABASES tag. */
export function namesItsDatabases(file) {
  return readFileSync(path.resolve(root, file), "utf8").includes(NAMES_ITS_DATABASES);
}

/** The test files whose imports reach one of DATABASE_ROOTS. */
export function databaseTestFiles(files = testFiles()) {
  // Every module the test files reach, and who imports each of them.
  const importers = new Map();
  const queue = [...files];
  const seen = new Set(queue);
  while (queue.length > 0) {
    const file = queue.pop();
    if (file.startsWith("node:")) continue;
    for (const target of importsOf(file)) {
      if (!importers.has(target)) importers.set(target, []);
      importers.get(target).push(file);
      if (!seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  // Walk back from the roots: everything that imports them, directly or not.
  const dependent = new Set(DATABASE_ROOTS);
  const back = [...DATABASE_ROOTS];
  while (back.length > 0) {
    for (const importer of importers.get(back.pop()) ?? []) {
      if (!dependent.has(importer)) {
        dependent.add(importer);
        back.push(importer);
      }
    }
  }
  return files.filter((f) => dependent.has(f) && !namesItsDatabases(f));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const all = testFiles();
  const picked = databaseTestFiles(all);
  for (const f of picked) console.log(f);
  const named = all.filter(namesItsDatabases);
  console.log(`${picked.length} of ${all.length} test files depend on the main database`);
  console.log(`left out, naming every database they use (${NAMES_ITS_DATABASES}): ${named.join(", ")}`);
}
