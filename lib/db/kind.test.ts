import { describe, expect, it } from "vitest";
import { dbKindOf, logDbOf } from "@/lib/db/kind";

describe("LOG_SQL_DSN", () => {
  it("empty keeps the logs in the main database", () => {
    expect(logDbOf("", "")).toBeNull();
    expect(logDbOf("", "postgres://u@h/qiao")).toBeNull();
  });

  it("takes a PostgreSQL or MySQL/MariaDB database beside any main one", () => {
    expect(logDbOf("postgres://u@h/logs", "")).toEqual({ kind: "postgresql", dsn: "postgres://u@h/logs" });
    expect(logDbOf("postgresql://u@h/logs", "mysql://u@h/qiao")).toEqual({ kind: "postgresql", dsn: "postgresql://u@h/logs" });
    expect(logDbOf("mysql://u@h/logs", "postgres://u@h/qiao")).toEqual({ kind: "mysql", dsn: "mysql://u@h/logs" });
    expect(logDbOf("mariadb://u@h/logs", "")).toEqual({ kind: "mysql", dsn: "mariadb://u@h/logs" });
  });

  it("refuses a SQLite file, the main database itself and anything else, naming the variable", () => {
    expect(() => logDbOf("local", "")).toThrow(/LOG_SQL_DSN must name a PostgreSQL or MySQL\/MariaDB database/);
    expect(() => logDbOf("file:/data/logs.db", "")).toThrow(/not a SQLite file/);
    expect(() => logDbOf("postgres://u@h/qiao", "postgres://u@h/qiao")).toThrow(/same database as SQL_DSN/);
    expect(() => logDbOf("redis://h/0", "")).toThrow(/^LOG_SQL_DSN must start with postgres:\/\//);
    expect(() => dbKindOf("redis://h/0")).toThrow(/^SQL_DSN must start with/);
  });
});
