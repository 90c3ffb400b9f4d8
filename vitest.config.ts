import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["lib/**/*.test.ts", "tests/**/*.test.ts"],
    exclude: ["tests/e2e/**", "node_modules/**"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Integration suites start servers and databases; keep them from starving each other on 2 cores.
    fileParallelism: false,
    // The main database of every test file: SQLite, or PostgreSQL with QIAO_TEST_DB=postgresql.
    globalSetup: ["tests/setup/postgres.ts"],
    setupFiles: ["tests/setup/env.ts"],
  },
});
