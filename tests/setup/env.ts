// Every vitest worker gets its own scratch data directory, so no test touches ./data.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";

if (!process.env.QIAO_TEST_KEEP_ENV) {
  process.env.DATA_DIR = mkdtempSync(path.join(os.tmpdir(), "qiao-test-"));
  process.env.SQLITE_PATH = path.join(process.env.DATA_DIR, "qiao.db");
  process.env.SESSION_SECRET = "test-session-secret-0123456789abcdef";
  process.env.NEXT_TELEMETRY_DISABLED = "1";
}
