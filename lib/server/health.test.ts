// Readiness against real databases and Redis: a database that answers or not, migrations applied
// or pending, Redis up or down (not a 503 by itself), draining, and one probe for many askers.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loggedLines, spyOnLog } from "@/tests/helpers/log";
import { RedisCache } from "@/lib/cache/shared";
import { openDirectDb, type DirectDb } from "@/lib/db/direct";
import { migrations } from "@/lib/db/migrations.generated";
import { startDraining } from "@/lib/server/drain";
import { ReadinessCheck, readinessStatus, safeMessage } from "@/lib/server/health";
import { createTestDatabase, type TestDatabase } from "@/tests/helpers/databases";

function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

describe("ReadinessCheck", () => {
  for (const kind of ["sqlite", "postgresql", "mysql"] as const) {
    describe(`on ${kind}`, () => {
      let t: TestDatabase;
      beforeAll(async () => {
        t = await createTestDatabase(kind);
      });
      afterAll(async () => {
        await t?.drop();
      });

      it("is ready when the database answers and every migration is applied", async () => {
        const r = await new ReadinessCheck({ db: async () => t.direct, migrations: async () => migrations[kind], redis: null }).check();
        expect(readinessStatus(r)).toBe(200);
        expect(r).toMatchObject({
          status: "ready",
          checks: {
            database: { ok: true },
            migrations: { ok: true, applied: migrations[kind].length, pending: [] },
            redis: { ok: true, configured: false },
            draining: false,
          },
        });
      });

      it("is not ready while a migration of this build is not applied", async () => {
        const future = { id: "9999_future", sql: "SELECT 1", checksum: "0".repeat(64) };
        const r = await new ReadinessCheck({
          db: async () => t.direct,
          migrations: async () => [...migrations[kind], future],
          redis: null,
        }).check();
        expect(readinessStatus(r)).toBe(503);
        expect(r.checks.migrations).toEqual({ ok: false, applied: migrations[kind].length, pending: ["9999_future"] });
      });
    });
  }

  it("is not ready when the database does not answer, and names no DSN", async () => {
    const dsn = `postgres://qiao:s3cret@127.0.0.1:${await closedPort()}/qiao`;
    const db = await openDirectDb("postgresql", dsn);
    try {
      const r = await new ReadinessCheck({ db: async () => db, migrations: async () => migrations.postgresql, redis: null }).check();
      expect(readinessStatus(r)).toBe(503);
      expect(r.checks.database.ok).toBe(false);
      expect(r.checks.database.error).toBeTruthy();
      expect(r.checks.migrations.ok).toBe(false);
      expect(JSON.stringify(r)).not.toContain("s3cret");
    } finally {
      await db.close();
    }
  });

  describe("on SQLite", () => {
    let t: TestDatabase;
    beforeAll(async () => {
      t = await createTestDatabase("sqlite");
    });
    afterAll(async () => {
      await t?.drop();
    });

    it("is not ready when the database has a migration this build does not know", async () => {
      const r = await new ReadinessCheck({
        db: async () => t.direct,
        migrations: async () => migrations.sqlite.slice(0, -1),
        redis: null,
      }).check();
      expect(r.status).toBe("not_ready");
      expect(r.checks.migrations.ok).toBe(false);
      expect(r.checks.migrations.error).toContain(migrations.sqlite.at(-1)!.id);
    });

    it("stays ready with Redis down, says so in the detail and once in the log, and names no address", async () => {
      const redis = new RedisCache(`redis://:hunter2@127.0.0.1:${await closedPort()}`);
      const logged = spyOnLog();
      try {
        const check = new ReadinessCheck({ db: async () => t.direct, migrations: async () => migrations.sqlite, redis });
        const r = await check.check();
        expect(readinessStatus(r)).toBe(200);
        expect(r.checks.redis).toMatchObject({ ok: false, configured: true, fallback: "local caches" });
        expect(r.checks.redis.error).toBeTruthy();
        expect(JSON.stringify(r)).not.toContain("hunter2");
        const lines = loggedLines(logged);
        expect(lines.filter((l) => l.component === "health" && String(l.msg).startsWith("Redis unreachable"))).toHaveLength(1);
        expect(JSON.stringify(lines)).not.toContain("hunter2");
      } finally {
        logged.mockRestore();
        await redis.close();
      }
    });

    it("stays ready with the log database down, says so in the detail and once in the log, and names no address", async () => {
      const logged = spyOnLog();
      try {
        const down = async (): Promise<DirectDb> => {
          throw new Error("connect ECONNREFUSED postgres://qiao:hunter2@10.0.0.9:5432/logs");
        };
        const check = new ReadinessCheck({ db: async () => t.direct, migrations: async () => migrations.sqlite, redis: null, logDb: down });
        const r = await check.check();
        expect(readinessStatus(r)).toBe(200);
        expect(r.checks.logs).toMatchObject({ ok: false, configured: true, fallback: "log rows held in memory" });
        expect(JSON.stringify(r)).not.toContain("hunter2");
        const lines = loggedLines(logged).filter((l) => l.component === "health");
        expect(lines.filter((l) => String(l.msg).startsWith("log database unreachable"))).toHaveLength(1);
        expect(JSON.stringify(lines)).not.toContain("hunter2");
      } finally {
        logged.mockRestore();
      }
    });

    it("reports the log database that answers, and none when LOG_SQL_DSN is not set", async () => {
      const withLogs = await new ReadinessCheck({
        db: async () => t.direct,
        migrations: async () => migrations.sqlite,
        redis: null,
        logDb: async () => t.direct,
      }).check();
      expect(withLogs.checks.logs).toMatchObject({ ok: true, configured: true });
      const without = await new ReadinessCheck({
        db: async () => t.direct,
        migrations: async () => migrations.sqlite,
        redis: null,
      }).check();
      expect(without.checks.logs).toEqual({ ok: true, configured: false });
    });

    it("reports Redis that answers", async () => {
      const redis = new RedisCache("redis://127.0.0.1:6379");
      try {
        const r = await new ReadinessCheck({ db: async () => t.direct, migrations: async () => migrations.sqlite, redis }).check();
        expect(r.checks.redis).toMatchObject({ ok: true, configured: true });
      } finally {
        await redis.close();
      }
    });

    it("asks the database once for many probes at the same time", async () => {
      let queries = 0;
      const counting: DirectDb = {
        ...t.direct,
        kind: t.direct.kind,
        query: (sql, params) => {
          queries++;
          return t.direct.query(sql, params);
        },
      };
      const check = new ReadinessCheck({ db: async () => counting, migrations: async () => migrations.sqlite, redis: null });
      const answers = await Promise.all(Array.from({ length: 50 }, () => check.check()));
      expect(answers.every((a) => a.status === "ready")).toBe(true);
      // One trivial query and one read of the migrations table.
      expect(queries).toBe(2);
    });

    // Last: draining has no way back in this process.
    it("is not ready once the process drains", async () => {
      const check = new ReadinessCheck({ db: async () => t.direct, migrations: async () => migrations.sqlite, redis: null });
      expect((await check.check()).status).toBe("ready");
      startDraining();
      const r = await check.check();
      expect(readinessStatus(r)).toBe(503);
      expect(r.checks.draining).toBe(true);
      expect(r.checks.database.ok).toBe(true);
    });
  });
});

describe("safeMessage", () => {
  it("replaces addresses with credentials and keeps the rest", () => {
    expect(safeMessage(new Error("cannot reach mysql://root:pw@db:3306/qiao now"))).toBe("cannot reach <address> now");
    const refused = new AggregateError([new Error("connect ECONNREFUSED 127.0.0.1:1")], "");
    expect(safeMessage(refused)).toBe("connect ECONNREFUSED 127.0.0.1:1");
  });
});
