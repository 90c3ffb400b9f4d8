// The log's CSV export, retention job and cleanup progress on SQLite (cases: log-jobs.cases.ts).
import { logJobCases } from "@/tests/api/log-jobs.cases";

logJobCases("sqlite");
