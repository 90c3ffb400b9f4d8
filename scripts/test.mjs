// `npm test`: the whole suite. The formatter and linter (Biome) and the typecheck (tsc), then unit
// and integration tests (vitest, real SQLite, PostgreSQL, MariaDB and Redis on loopback) and,
// beside them, the same vitest files again with PostgreSQL as every file's main database, then the
// browser tests (Playwright driving system Chromium against the real `npm start` server). Prints
// what failed, by name, then one closing line, "N passed, N failed", over all of them; the lint
// and the typecheck count as one test each.
//
// The PostgreSQL pass (QIAO_TEST_DB=postgresql, tests/setup/) runs the files that depend on the
// main database: those whose imports reach lib/db/kind.ts or node:child_process
// (scripts/database-tests.mjs; the others, parsers and pure rules, cannot see the difference).
//
// `node scripts/test.mjs [lint] [unit] [unit-pg] [e2e]` runs only the phases named.
import { spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { databaseTestFiles, namesItsDatabases, testFiles } from "./database-tests.mjs";
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

/**
 * Runs a Node script; resolves to its exit status. `log`: a file for its output, instead of this
 * terminal, or as well with `tee`.
 */
function run(script, args, { extraEnv = {}, log, tee = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: root,
      env: { ...env, ...extraEnv },
      stdio: log ? ["ignore", "pipe", "pipe"] : "inherit",
    });
    if (log) {
      const file = createWriteStream(log);
      for (const [from, to] of [
        [child.stdout, process.stdout],
        [child.stderr, process.stderr],
      ]) {
        from.pipe(file, { end: false });
        if (tee) from.pipe(to, { end: false });
      }
      child.once("close", (code) => file.end(() => resolve(code ?? 1)));
    } else child.once("close", (code) => resolve(code ?? 1));
  });
}

let passed = 0;
let failed = 0;
let code = 0;
/** What failed, by name, printed just above the closing line (the end of a CI log is what is kept). */
const failures = [];
/** The vitest passes' failure sections, printed at the end too (see printFailureDetails). */
const failureDetails = [];
const minutes = (since) => `${((Date.now() - since) / 60_000).toFixed(1)} min`;

/** Adds a vitest JSON report's counts and failures; a missing report (the run crashed) is one failure. */
function countVitest(file, pass) {
  if (!existsSync(file)) {
    failures.push(`${pass}: no report (the run crashed)`);
    return void (failed += 1);
  }
  const r = JSON.parse(readFileSync(file, "utf8"));
  passed += r.numPassedTests ?? 0;
  // Each failed test, and each file that failed without one (it crashed, or a hook failed).
  for (const result of r.testResults ?? []) {
    const name = path.relative(root, result.name);
    const tests = (result.assertionResults ?? []).filter((t) => t.status === "failed");
    for (const t of tests) failures.push(`${pass}: ${name} › ${t.fullName}`);
    if (result.status === "failed" && tests.length === 0) failures.push(`${pass}: ${name}: ${firstLine(result.message)}`);
    failed += tests.length || (result.status === "failed" ? 1 : 0);
  }
}

/**
 * Keeps the failures section of a vitest pass's log to print at the end (the rest stays in the
 * file): the end of a CI log is what is kept, and Playwright's output comes after the vitest passes'.
 */
function printFailureDetails(pass, log) {
  if (!existsSync(log)) return;
  const text = readFileSync(log, "utf8").replace(/\u001b\[[0-9;]*m/g, "");
  const at = text.search(/⎯+ Failed (Tests|Suites) \d+ ⎯+/);
  const details = at >= 0 ? text.slice(at) : text.slice(-20_000);
  failureDetails.push(`\n[test] ${pass}, failures (whole output in ${path.relative(root, log)}):\n${details.slice(0, 60_000)}`);
}

/** Adds the failed and flaky tests of a Playwright JSON report. */
function playwrightFailures(report) {
  const walk = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        if (t.status !== "unexpected" && t.status !== "flaky") continue;
        const error = t.results?.find((x) => x.error)?.error?.message;
        failures.push(`Playwright: ${spec.file} › ${[...titles, spec.title].join(" › ")}${error ? `: ${firstLine(error)}` : ""}`);
      }
    }
    for (const child of suite.suites ?? []) walk(child, child.title && child.title !== child.file ? [...titles, child.title] : titles);
  };
  for (const suite of report.suites ?? []) walk(suite, []);
}

/** The first line of an error message, without terminal colours, at most 300 characters. */
function firstLine(text = "") {
  return (
    String(text)
      .replace(/\u001b\[[0-9;]*m/g, "")
      .split("\n")
      .find((l) => l.trim())
      ?.trim()
      .slice(0, 300) ?? ""
  );
}

/** A vitest pass; its output goes to test-results/<name>.log, and to this terminal too with `tee`. */
function vitest(name, files, extraEnv, { tee }) {
  const file = path.join(out, `${name}.json`);
  const log = path.join(out, `${name}.log`);
  rmSync(file, { force: true });
  const started = Date.now();
  return run(bin.vitest, ["run", "--reporter=default", "--reporter=json", `--outputFile=${file}`, ...files], { extraEnv, log, tee }).then(
    (status) => ({ status, file, log, took: minutes(started) }),
  );
}

if (wants("lint")) {
  for (const [name, script, args] of [
    ["Biome", bin.biome, ["ci", "."]],
    ["tsc", bin.tsc, ["--noEmit"]],
  ]) {
    const status = await run(script, args);
    if (status === 0) passed += 1;
    else {
      failed += 1;
      failures.push(`${name}: exit code ${status}`);
    }
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
    if (status !== 0) {
      failed += 1;
      failures.push(`the build: exit code ${status}`);
    }
    code |= status;
  }
}

// The two vitest passes run side by side, each with Redis databases of its own
// (tests/helpers/redis.ts). Each writes its output to test-results/<pass>.log (the SQLite pass to
// this terminal too), and the details of their failures are printed again at the end. The files
// tagged NAMES_ITS_DATABASES run the same in either pass, so when both run, every other one of
// them runs in the PostgreSQL pass instead of the SQLite one: the SQLite pass runs every file and
// is the longer, and this evens them out (18.8 and 13.2 min before). Playwright runs after them,
// alone: beside a vitest pass it slowed enough on two cores to fail a spec on a timeout.
const vitestPasses = [];
const movedToPostgres =
  wants("unit") && wants("unit-pg")
    ? testFiles()
        .filter(namesItsDatabases)
        .filter((_, i) => i % 2 === 1)
    : [];
if (wants("unit")) {
  const exclude = movedToPostgres.flatMap((f) => ["--exclude", f]);
  vitestPasses.push(
    vitest("vitest", exclude, { QIAO_TEST_DB: "sqlite" }, { tee: true }).then((r) => () => {
      code |= r.status;
      countVitest(r.file, "vitest on SQLite");
      if (r.status !== 0) printFailureDetails("vitest on SQLite", r.log);
      console.log(`[test] vitest on SQLite: ${r.took}`);
    }),
  );
}
if (wants("unit-pg")) {
  const files = [...databaseTestFiles(), ...movedToPostgres];
  console.log(
    `[test] vitest on PostgreSQL: the ${files.length - movedToPostgres.length} files that depend on the main database and ` +
      `${movedToPostgres.length} that name their databases, output in test-results/vitest-postgresql.log`,
  );
  vitestPasses.push(
    vitest("vitest-postgresql", files, { QIAO_TEST_DB: "postgresql" }, { tee: false }).then((r) => () => {
      code |= r.status;
      countVitest(r.file, "vitest on PostgreSQL");
      if (r.status !== 0) printFailureDetails("vitest on PostgreSQL", r.log);
      console.log(`[test] vitest on PostgreSQL: ${r.took}`);
    }),
  );
}
for (const report of await Promise.all(vitestPasses)) report();

if (wants("e2e")) {
  const file = path.join(out, "playwright.json");
  rmSync(file, { force: true });
  const started = Date.now();
  const status = await run(bin.playwright, ["test", "--reporter=list,json"], { extraEnv: { PLAYWRIGHT_JSON_OUTPUT_NAME: file } });
  code |= status;
  if (existsSync(file)) {
    const report = JSON.parse(readFileSync(file, "utf8"));
    const s = report.stats ?? {};
    passed += s.expected ?? 0;
    failed += (s.unexpected ?? 0) + (s.flaky ?? 0);
    const before = failures.length;
    playwrightFailures(report);
    // Errors outside any test (the web server would not start, a config error): the report's own.
    for (const e of report.errors ?? []) failures.push(`Playwright: ${firstLine(e.message)}`);
    if (status !== 0 && failures.length === before) failures.push(`Playwright: exit code ${status}`);
  } else {
    failed += 1;
    failures.push("Playwright: no report (the run crashed)");
  }
  console.log(`[test] Playwright: ${minutes(started)}`);
}

if (code !== 0 && failed === 0) failed = 1;
for (const details of failureDetails) console.log(details);
if (failures.length) console.log(`\nFailed:\n${failures.map((f) => `  ${f}`).join("\n")}`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(code === 0 && failed === 0 ? 0 : 1);
