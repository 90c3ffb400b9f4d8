// Browser tests: the real server (`node scripts/start.mjs`, which builds first when sources
// changed) on a fresh SQLite database, driven by the system Chromium (no browser downloads).
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";
import { E2E_BASE_URL, E2E_PORT, E2E_SESSION_SECRET, E2E_STRIPE_URL } from "./tests/e2e/env";

// The config is evaluated by the runner and again by every worker; workers inherit the runner's
// environment, so one data directory is created per run.
process.env.QIAO_E2E_DATA_DIR ??= mkdtempSync(path.join(os.tmpdir(), "qiao-e2e-"));
const dataDir = process.env.QIAO_E2E_DATA_DIR;

export default defineConfig({
  testDir: "tests/e2e",
  outputDir: "test-results/playwright",
  // One worker: the server and the browser share two cores.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [["list"]],
  use: {
    baseURL: E2E_BASE_URL,
    locale: "zh-CN",
    timezoneId: "Asia/Shanghai",
    viewport: { width: 1280, height: 800 },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  projects: [
    { name: "setup", testMatch: /.*\.setup\.ts/ },
    { name: "console", testMatch: /.*\.spec\.ts/, dependencies: ["setup"] },
  ],
  webServer: {
    command: "node scripts/start.mjs",
    url: `${E2E_BASE_URL}/api/status`,
    reuseExistingServer: false,
    // The first start runs `next build`: minutes on a two-core machine.
    timeout: 10 * 60_000,
    stdout: "pipe",
    stderr: "pipe",
    env: {
      ...(process.env as Record<string, string>),
      PORT: String(E2E_PORT),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      SQLITE_PATH: path.join(dataDir, "qiao.db"),
      SQL_DSN: "",
      SESSION_SECRET: E2E_SESSION_SECRET,
      CRITICAL_RATE_LIMIT: "1000",
      LOGIN_FAILURE_LIMIT: "1000",
      NEXT_TELEMETRY_DISABLED: "1",
      // The mock Stripe API tests/e2e/pay-stripe.spec.ts starts on this fixed loopback port.
      STRIPE_API_BASE_URL: E2E_STRIPE_URL,
    },
  },
});
