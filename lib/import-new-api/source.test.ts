// The source DSN as operators paste it: new-api's own SQL_DSN (Go's MySQL form), URLs, a SQLite
// path; and the name of an install, the same for every spelling of where it is.
import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseSourceDsn, SOURCE_MSG, sourceId } from "@/lib/import-new-api/source";

describe("parseSourceDsn", () => {
  it("reads Go's MySQL DSN, URLs and a SQLite path", () => {
    expect(parseSourceDsn("root:p%w@tcp(db.local:3307)/newapi?charset=utf8mb4&parseTime=True")).toEqual({
      kind: "mysql",
      dsn: "mysql://root:p%25w@db.local:3307/newapi",
    });
    expect(parseSourceDsn("newapi@tcp(127.0.0.1:3306)/one")).toEqual({ kind: "mysql", dsn: "mysql://newapi@127.0.0.1:3306/one" });
    expect(parseSourceDsn(" postgres://u:p@pg:5432/newapi ")).toEqual({ kind: "postgresql", dsn: "postgres://u:p@pg:5432/newapi" });
    expect(parseSourceDsn("mariadb://root@127.0.0.1/x")).toEqual({ kind: "mysql", dsn: "mysql://root@127.0.0.1/x" });
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "qiao-src-")), "one-api.db");
    writeFileSync(file, "");
    expect(parseSourceDsn(file)).toEqual({ kind: "sqlite", dsn: file });
    expect(parseSourceDsn(`sqlite://${file}`)).toEqual({ kind: "sqlite", dsn: file });
  });

  it("says what is wrong with an empty source or a missing file", () => {
    expect(() => parseSourceDsn("  ")).toThrow(SOURCE_MSG.empty);
    expect(() => parseSourceDsn("/nowhere/one-api.db")).toThrow(SOURCE_MSG.noFile("/nowhere/one-api.db"));
  });
});

describe("sourceId", () => {
  it("is the same for every spelling of one install, and differs between installs", () => {
    const a = sourceId(parseSourceDsn("root:secret@tcp(DB.local:3306)/newapi?parseTime=True"));
    expect(sourceId(parseSourceDsn("mysql://other@db.local/newapi"))).toBe(a);
    expect(sourceId(parseSourceDsn("mysql://root@db.local:3306/newapi2"))).not.toBe(a);
    expect(a).not.toContain("secret");
    const dir = mkdtempSync(path.join(os.tmpdir(), "qiao-src-"));
    writeFileSync(path.join(dir, "one-api.db"), "");
    // Another spelling of the same file (a "." step, a symbolic link) is the same install.
    const link = path.join(dir, "link.db");
    symlinkSync(path.join(dir, "one-api.db"), link);
    expect(sourceId(parseSourceDsn(`${dir}/./one-api.db`))).toBe(sourceId(parseSourceDsn(link)));
  });
});
