// `npm run import:new-api` on a large install: builds a new-api (latest) SQLite fixture with
// N log rows (1 000 000 by default; tests/fixtures/new-api/build.ts), then runs the real CLI
// (scripts/import-new-api.ts --apply --logs) in its own process into a fresh Qiao SQLite file.
//   node bench/import.mjs [--rows 1000000] [--keep]
// Prints the rows per second of the logs phase and of the whole run, and the CLI's peak RSS
// (VmHWM, read from /proc while it runs). Target: memory flat with the row count, under 300 MB.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tsImport } from "tsx/esm/api";

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .flatMap((a, i, all) => (a.startsWith("--") ? [[a.slice(2), all[i + 1]?.startsWith("--") ? true : (all[i + 1] ?? true)]] : [])),
);
const ROWS = Number(args.rows ?? 1_000_000);

const dir = mkdtempSync(path.join(tmpdir(), "qiao-import-bench-"));
process.env.DATA_DIR = dir;
process.env.SQLITE_PATH = path.join(dir, "fixture-helper.db");
process.env.SQL_DSN = "";
process.env.SESSION_SECRET ??= "bench-session-secret-0123456789abcdef";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { buildNewApiFixture } = await tsImport(path.join(root, "tests/fixtures/new-api/build.ts"), import.meta.url);

let t = Date.now();
const fixture = await buildNewApiFixture("sqlite", "new-api-latest", { logs: ROWS, users: 200 });
console.log(`fixture: ${ROWS} log rows built in ${((Date.now() - t) / 1000).toFixed(1)} s (${fixture.from})`);

const target = path.join(dir, "qiao.db");
t = Date.now();
const child = spawn(
  process.execPath,
  ["--import", "tsx", path.join(root, "scripts/import-new-api.ts"), "--from", fixture.from, "--apply", "--logs", "--json"],
  {
    cwd: root,
    env: { ...process.env, SQLITE_PATH: target, DATA_DIR: dir, NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "pipe"],
  },
);
let out = "";
let err = "";
child.stdout.on("data", (d) => (out += d));
child.stderr.on("data", (d) => (err += d));
let peakKb = 0;
const samples = [];
const sampler = setInterval(() => {
  try {
    const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
    peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
    samples.push(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0));
    if (args.trace) console.log(`${((Date.now() - t) / 1000).toFixed(1)}s rss ${samples.at(-1)} kB ${err.trim().split("\n").at(-1) ?? ""}`);
  } catch {
    // exited
  }
}, 200);
const code = await new Promise((resolve) => child.once("exit", resolve));
clearInterval(sampler);
const wall = (Date.now() - t) / 1000;
if (code !== 0) {
  console.error(err.slice(-4000));
  console.error(out.slice(-4000));
  process.exit(1);
}
const report = JSON.parse(out);
const logs = report.tables.find((x) => x.table === "logs");
const mb = (kb) => (kb / 1024).toFixed(0);
const q = (share) => (samples.length ? samples[Math.min(samples.length - 1, Math.floor(share * samples.length))] : 0);
console.log(`logs imported:   ${logs.imported} rows in ${logs.seconds.toFixed(1)} s = ${Math.round(logs.imported / logs.seconds)} rows/s`);
console.log(`whole CLI run:   ${wall.toFixed(1)} s (start, migrations, every table, the sums)`);
console.log(
  `peak RSS:        ${mb(peakKb)} MB (VmHWM); RSS at 25/50/75/100 % of the run: ${[0.25, 0.5, 0.75, 0.999].map((s) => mb(q(s))).join(" / ")} MB`,
);
console.log(`sums equal:      ${Object.values(report.sums).every((s) => s.equal)}`);
console.log(peakKb / 1024 < 300 ? "OK: peak under 300 MB" : "OVER: peak at or above 300 MB");

await fixture.drop();
if (!args.keep) rmSync(dir, { recursive: true, force: true });
else console.log(`kept ${dir}`);
