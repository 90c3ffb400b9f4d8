// The PostgreSQL pass of `npm test` runs the test files scripts/database-tests.mjs finds by their
// imports. Checked here against another signal: a file whose own text opens the main database or
// starts a process is among them (unless it names every database it uses), and a pure one is not.
// A tagged file that uses the main database after all fails in every pass (tests/setup/env.ts;
// tests/setup/main-database.test.ts shows it).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { databaseTestFiles, NAMES_ITS_DATABASES, namesItsDatabases, testFiles } from "@/scripts/database-tests.mjs";

const all = testFiles();
const picked = new Set(databaseTestFiles(all));

describe("the test files that depend on the main database", () => {
  it("are found among all the files vitest runs", () => {
    expect(all).toContain("tests/setup/main-database.test.ts");
    expect(all).toContain("lib/ui/format.test.ts");
    expect(all.some((f) => f.startsWith("tests/e2e/"))).toBe(false);
    expect(picked.size).toBeGreaterThan(0);
    expect(picked.size).toBeLessThan(all.length);
  });

  it("include every file that itself opens the database or starts a server or another process", () => {
    const signals = /\b(getDb|getDirectDb|createUser|startServer|startRelayProcess|startInstance)\(|from ["']node:child_process["']/;
    const code = (f: string) => readFileSync(f, "utf8").replace(/^\s*\/\/.*$/gm, "");
    const missed = all.filter((f) => signals.test(code(f)) && !picked.has(f) && !namesItsDatabases(f));
    expect(missed).toEqual([]);
  });

  it(`leave out the files tagged ${NAMES_ITS_DATABASES}, which run on every database by name already`, () => {
    const tagged = all.filter(namesItsDatabases);
    expect(tagged).toContain("tests/api/redemption-race.test.ts");
    expect(tagged.filter((f) => picked.has(f))).toEqual([]);
  });

  it("leave out pure ones: formatting, parsing, converting", () => {
    for (const f of ["lib/ui/format.test.ts", "lib/relay/request/json-depth.test.ts", "lib/relay/providers/bedrock/sigv4.test.ts"]) {
      expect(picked.has(f), f).toBe(false);
    }
    for (const f of ["tests/setup/main-database.test.ts", "tests/api/tokens.test.ts", "tests/relay/relay-shutdown.test.ts"]) {
      expect(picked.has(f), f).toBe(true);
    }
  });
});
