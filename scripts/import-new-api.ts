// Copies a running new-api / one-api install into the Qiao database SQL_DSN (or SQLITE_PATH) names.
//
//   npm run import:new-api -- --from <dsn>            dry run: counts, problems, sums; writes nothing
//   npm run import:new-api -- --from <dsn> --apply    writes (again: skips what is done, resumes)
//   … --logs                                          also the logs table, streamed in batches
//   … --json                                          the report as JSON on stdout
//
// <dsn>: new-api's SQLite file, its SQL_DSN as written (user:pass@tcp(host:3306)/db), or a
// mysql:// or postgres:// URL. See docs/import.md.
import { parseArgs } from "node:util";
import { getDb } from "@/lib/db";
import { getDirectDb, getLogDirectDb } from "@/lib/db/direct";
import { type ImportProgress, importNewApi } from "@/lib/import-new-api/run";
import { formatProgress, formatReport, reportJson } from "@/lib/import-new-api/report";

const { values } = parseArgs({
  options: {
    from: { type: "string" },
    apply: { type: "boolean", default: false },
    logs: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
    batch: { type: "string" },
    "log-batch": { type: "string" },
  },
});

if (!values.from) {
  console.error("usage: npm run import:new-api -- --from <dsn> [--apply] [--logs] [--json]");
  process.exit(2);
}

let last = 0;
const onProgress = (p: ImportProgress) => {
  const now = Date.now();
  if (!process.stderr.isTTY && now - last < 2000 && p.done < p.total) return;
  last = now;
  process.stderr.write(`${process.stderr.isTTY ? "\r\x1b[2K" : ""}${formatProgress(p, now)}${process.stderr.isTTY ? "" : "\n"}`);
};

try {
  const db = await getDb();
  const direct = await getDirectDb();
  const report = await importNewApi(
    { db, direct, logs: await getLogDirectDb() },
    {
      from: values.from,
      apply: values.apply,
      logs: values.logs,
      batch: values.batch ? Number(values.batch) : undefined,
      logBatch: values["log-batch"] ? Number(values["log-batch"]) : undefined,
      onProgress,
    },
  );
  if (process.stderr.isTTY) process.stderr.write("\n");
  console.log(values.json ? JSON.stringify(reportJson(report), null, 2) : formatReport(report));
  const unequal = Object.values(report.sums).some((s) => s.equal === false);
  await db.$disconnect();
  await direct.close();
  process.exit(unequal ? 1 : 0);
} catch (error) {
  console.error(`\n导入失败：${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
