// `npm test`: the whole suite. The formatter and linter (Biome) and the typecheck (tsc), then unit
// and integration tests (vitest, real SQLite, PostgreSQL, MariaDB and Redis on loopback), then the
// browser tests (Playwright driving system Chromium against the real `npm start` server). Prints one
// closing line: "N passed, N failed"; the lint and the typecheck count as one test each.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const out = path.join(root, "test-results");
mkdirSync(out, { recursive: true });
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
const only = process.argv[2];

function run(bin, args) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, env, stdio: "inherit" });
  return r.status ?? 1;
}

let passed = 0;
let failed = 0;
let code = 0;

if (!only || only === "lint") {
  for (const [bin, args] of [
    [path.join(root, "node_modules/@biomejs/biome/bin/biome"), ["ci", "."]],
    [path.join(root, "node_modules/typescript/bin/tsc"), ["--noEmit"]],
  ]) {
    const status = run(bin, args);
    if (status === 0) passed += 1;
    else failed += 1;
    code |= status;
  }
}

if (!only || only === "unit") {
  const file = path.join(out, "vitest.json");
  code |= run(path.join(root, "node_modules/vitest/vitest.mjs"), ["run", "--reporter=default", "--reporter=json", `--outputFile=${file}`]);
  if (existsSync(file)) {
    const r = JSON.parse(readFileSync(file, "utf8"));
    passed += r.numPassedTests ?? 0;
    failed += (r.numFailedTests ?? 0) + (r.numTotalTestSuites && r.numFailedTestSuites ? r.numFailedTestSuites : 0);
  } else failed += 1;
}

if (!only || only === "e2e") {
  const file = path.join(out, "playwright.json");
  const pwEnv = { ...env, PLAYWRIGHT_JSON_OUTPUT_NAME: file };
  const r = spawnSync(process.execPath, [path.join(root, "node_modules/@playwright/test/cli.js"), "test", "--reporter=list,json"], {
    cwd: root,
    env: pwEnv,
    stdio: "inherit",
  });
  code |= r.status ?? 1;
  if (existsSync(file)) {
    const s = JSON.parse(readFileSync(file, "utf8")).stats ?? {};
    passed += s.expected ?? 0;
    failed += (s.unexpected ?? 0) + (s.flaky ?? 0);
  } else failed += 1;
}

if (code !== 0 && failed === 0) failed = 1;
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(code === 0 && failed === 0 ? 0 : 1);
