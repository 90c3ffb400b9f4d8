// `npm test`: the whole suite. The formatter and linter (Biome) and the typecheck (tsc), then unit
// and integration tests (vitest, real SQLite, PostgreSQL, MariaDB and Redis on loopback), then the
// browser tests (Playwright driving system Chromium against the real `npm start` server), then the
// same vitest files again with PostgreSQL as every file's main database. Prints one closing line,
// "N passed, N failed", over all of them; the lint and the typecheck count as one test each.
//
// The PostgreSQL pass (QIAO_TEST_DB=postgresql, tests/setup/) runs the files that depend on the
// main database: those whose imports reach lib/db/kind.ts or node:child_process
// (scripts/database-tests.mjs; the others, parsers and pure rules, cannot see the difference).
// It runs after Playwright, not beside it: on two cores the two together slowed the browser tests
// enough to fail one on a timeout (README, "Run it").
//
// `node scripts/test.mjs [lint] [unit] [unit-pg] [e2e]` runs only the phases named.
import { spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { databaseTestFiles } from "./database-tests.mjs";
import { buildFingerprint, SERVER_BUNDLE } from "./fingerprint.mjs";

const root = path.resolve(import.meta.dirname, "..");
const out = path.join(root, "test-results");
mkdirSync(out, { recursive: true });
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
const phases = new Set(process.argv.slice(2));
const wants = (phase) => phases.size === 0 || phases.has(phase);
const bin = {
  biome: path.join(root, "node_modules/@biomejs/biome/bin/biome"),
  tsc: path.join(root, "node_modules/typescript/bin/tsc"),
  vitest: path.join(root, "node_modules/vitest/vitest.mjs"),
  playwright: path.join(root, "node_modules/@playwright/test/cli.js"),
};

/** Runs a Node script; resolves to its exit status. `log`: a file for its output instead of this terminal. */
function run(script, args, { extraEnv = {}, log } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: root,
      env: { ...env, ...extraEnv },
      stdio: log ? ["ignore", "pipe", "pipe"] : "inherit",
    });
    if (log) {
      const file = createWriteStream(log);
      child.stdout.pipe(file, { end: false });
      child.stderr.pipe(file, { end: false });
      child.once("close", (code) => file.end(() => resolve(code ?? 1)));
    } else child.once("close", (code) => resolve(code ?? 1));
  });
}

let passed = 0;
let failed = 0;
let code = 0;
const minutes = (since) => `${((Date.now() - since) / 60_000).toFixed(1)} min`;

/** Adds a vitest JSON report's counts; a missing report (the run crashed) is one failure. */
function countVitest(file) {
  if (!existsSync(file)) return void (failed += 1);
  const r = JSON.parse(readFileSync(file, "utf8"));
  passed += r.numPassedTests ?? 0;
  failed += (r.numFailedTests ?? 0) + (r.numTotalTestSuites && r.numFailedTestSuites ? r.numFailedTestSuites : 0);
}

function vitest(name, files, extraEnv, log) {
  const file = path.join(out, `${name}.json`);
  rmSync(file, { force: true });
  const started = Date.now();
  return run(bin.vitest, ["run", "--reporter=default", "--reporter=json", `--outputFile=${file}`, ...files], { extraEnv, log }).then(
    (status) => ({ status, file, took: minutes(started) }),
  );
}

if (wants("lint")) {
  for (const [script, args] of [
    [bin.biome, ["ci", "."]],
    [bin.tsc, ["--noEmit"]],
  ]) {
    const status = await run(script, args);
    if (status === 0) passed += 1;
    else failed += 1;
    code |= status;
  }
}

if (wants("unit") || wants("unit-pg") || wants("e2e")) {
  // Tests start `npm start`, which builds when the sources changed: build once here, so no test
  // waits for a build in its hook and the passes that run together never build at once.
  const marker = path.join(root, ".next/qiao-fingerprint");
  const fresh = existsSync(marker) && existsSync(path.join(root, SERVER_BUNDLE)) && readFileSync(marker, "utf8") === buildFingerprint();
  if (!fresh) {
    const status = await run(path.join(root, "scripts/build.mjs"), []);
    if (status !== 0) failed += 1;
    code |= status;
  }
}

if (wants("unit")) {
  const r = await vitest("vitest", [], { QIAO_TEST_DB: "sqlite" });
  code |= r.status;
  countVitest(r.file);
  console.log(`[test] vitest on SQLite: ${r.took}`);
}

// The phases after the build, one after another: run beside Playwright, the PostgreSQL pass slowed
// the browser tests enough on two cores to fail one on a timeout (a click before hydration).
const phasesInOrder = [];

if (wants("e2e")) {
  const file = path.join(out, "playwright.json");
  rmSync(file, { force: true });
  phasesInOrder.push(() => {
    const started = Date.now();
    return run(bin.playwright, ["test", "--reporter=list,json"], { extraEnv: { PLAYWRIGHT_JSON_OUTPUT_NAME: file } }).then((status) => {
      code |= status;
      if (existsSync(file)) {
        const s = JSON.parse(readFileSync(file, "utf8")).stats ?? {};
        passed += s.expected ?? 0;
        failed += (s.unexpected ?? 0) + (s.flaky ?? 0);
      } else failed += 1;
      return () => console.log(`[test] Playwright: ${minutes(started)}`);
    });
  });
}

if (wants("unit-pg")) {
  const files = databaseTestFiles();
  phasesInOrder.push(() => {
    console.log(`[test] vitest on PostgreSQL: the ${files.length} files that depend on the main database`);
    return vitest("vitest-postgresql", files, { QIAO_TEST_DB: "postgresql" }).then((r) => {
      code |= r.status;
      countVitest(r.file);
      return () => console.log(`[test] vitest on PostgreSQL: ${r.took}`);
    });
  });
}

for (const phase of phasesInOrder) (await phase())();

if (code !== 0 && failed === 0) failed = 1;
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(code === 0 && failed === 0 ? 0 : 1);
