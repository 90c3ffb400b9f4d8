// The Docker packaging, checked without Docker (these machines have no daemon): the Dockerfile's
// build stage runs the commands this test runs, on the repo's own build (`npm run build` first
// when the sources changed, as `npm start` decides); the runtime stage's COPYs are made from that
// pruned tree into an empty directory, and the image's CMD starts there with the image's ENV
// and qiao1's environment from docker-compose.yml, as uid 10001 when the test runs as root, on a
// fresh PostgreSQL database and the local Redis: /healthz, /readyz, the image's HEALTHCHECK, a
// sign-in as root, then SIGTERM and exit 0. And docker-compose.yml and deploy/Caddyfile agree.
// @main-database none (the image's database is named; scripts/database-tests.mjs).
import { type ChildProcess, execFileSync, execSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFingerprint, SERVER_BUNDLE } from "@/scripts/fingerprint.mjs";
import { PG_ADMIN_DSN } from "@/tests/helpers/databases";
import { parseYamlSubset, type YamlValue } from "@/tests/deploy/yaml-subset";
import { testRedisUrl } from "@/tests/helpers/redis";

const root = path.resolve(import.meta.dirname, "../..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

// ---- the Dockerfile ----

type Instruction = { op: string; args: string };
type Stage = { image: string; name: string; instructions: Instruction[] };

/** Stages of a Dockerfile: comments dropped, `\` continuations joined. */
function parseDockerfile(text: string): Stage[] {
  const logical: string[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("#") || (line === "" && pending === "")) continue;
    if (line.endsWith("\\")) pending += `${line.slice(0, -1).trim()} `;
    else {
      logical.push(`${pending}${line}`.trim());
      pending = "";
    }
  }
  const stages: Stage[] = [];
  for (const line of logical.filter(Boolean)) {
    const m = /^(\S+)\s+(.*)$/s.exec(line);
    if (!m) throw new Error(`unreadable instruction: ${line}`);
    const op = m[1]!.toUpperCase();
    if (op === "FROM") {
      const from = /^(\S+)\s+AS\s+(\S+)$/i.exec(m[2]!);
      if (!from) throw new Error(`FROM without a stage name: ${line}`);
      stages.push({ image: from[1]!, name: from[2]!, instructions: [] });
    } else {
      const stage = stages.at(-1);
      if (!stage) throw new Error(`${op} before FROM`);
      stage.instructions.push({ op, args: m[2]! });
    }
  }
  return stages;
}

const stages = parseDockerfile(read("Dockerfile"));
const build = stages.find((s) => s.name === "build")!;
const runtime = stages.find((s) => s.name === "runtime")!;
const all = (stage: Stage, op: string) => stage.instructions.filter((i) => i.op === op).map((i) => i.args);
const one = (stage: Stage, op: string) => {
  const found = all(stage, op);
  expect(found, `${stage.name}: one ${op}`).toHaveLength(1);
  return found[0]!;
};
/** `ENV A=1 B=2` instructions of a stage, as one record. */
function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const args of all(stage, "ENV")) for (const [, k, v] of args.matchAll(/(\w+)=(\S+)/g)) env[k!] = v!;
  return env;
}

/** The build stage's RUN commands, apart from the apt-get line that installs the compiler. */
const BUILD_COMMANDS = [
  "npm ci --ignore-scripts --no-audit --no-fund",
  "npm rebuild better-sqlite3 esbuild",
  "npm run build",
  "npm prune --omit=dev --ignore-scripts --no-audit --no-fund",
  "node scripts/prune-runtime.mjs",
];
const buildRuns = () => all(build, "RUN").filter((r) => !r.startsWith("apt-get"));

// ---- docker-compose.yml ----

type Service = Record<string, YamlValue> & { environment?: Record<string, string | number> };
const compose = parseYamlSubset(read("docker-compose.yml")) as { services: Record<string, Service>; volumes: Record<string, null> };
const services = compose.services;
const qiaoNames = Object.keys(services).filter((n) => /^qiao\d+$/.test(n));

/** KEY=value lines of an env file (comments and blank lines skipped). */
function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

/** The Caddyfile's reverse_proxy line and its block's directives. */
function parseCaddyProxy(text: string) {
  const lines = text.split("\n").map((l) => l.replace(/#.*$/, "").trim());
  const site = lines.find((l) => /^:\d+\s*\{$/.test(l));
  const start = lines.findIndex((l) => l.startsWith("reverse_proxy "));
  const upstreams = lines[start]!.replace(/^reverse_proxy\s+/, "")
    .replace(/\s*\{$/, "")
    .split(/\s+/);
  const directives: Record<string, string> = {};
  let depth = 1;
  for (const l of lines.slice(start + 1)) {
    if (l === "}" && --depth === 0) break;
    if (l.endsWith("{")) depth++;
    const m = /^(\S+)\s*(.*)$/.exec(l);
    if (m && !l.endsWith("{") && l !== "}") directives[m[1]!] = m[2]!;
  }
  return { listen: site ? Number(/^:(\d+)/.exec(site)![1]) : null, upstreams, directives };
}

describe("Dockerfile", () => {
  it("builds in one node:20-bookworm-slim stage and runs in another, with the compiler only where it builds", () => {
    expect(stages.map((s) => s.name)).toEqual(["build", "runtime"]);
    for (const s of stages) expect(s.image).toBe("node:20-bookworm-slim");
    const apt = all(build, "RUN").find((r) => r.startsWith("apt-get"));
    expect(apt).toMatch(/apt-get install -y --no-install-recommends python3 make g\+\+/);
    expect(all(runtime, "RUN").join("\n")).not.toMatch(/apt-get|npm /);
    expect(buildRuns()).toEqual(BUILD_COMMANDS);
    // The only install scripts run are those package.json allows.
    const allowed = Object.keys(JSON.parse(read("package.json")).allowScripts).sort();
    expect(BUILD_COMMANDS[1]!.split(" ").slice(2).sort()).toEqual(allowed);
  });

  it("runs the server npm start runs, as uid 10001, with /data, port 3000, a /healthz check and SIGTERM", () => {
    const cmd = JSON.parse(one(runtime, "CMD")) as string[];
    expect(cmd).toEqual(["node", SERVER_BUNDLE]);
    // scripts/start.mjs runs the same bundle with these two set.
    expect(read("scripts/start.mjs")).toContain('NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1"');
    expect(envOf(runtime)).toMatchObject({ NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", PORT: "3000", DATA_DIR: "/data" });
    expect(one(runtime, "USER")).toBe("10001:10001");
    expect(all(runtime, "RUN").join("\n")).toMatch(/useradd --system --uid 10001 .*&& chown qiao:qiao \/data/);
    expect(one(runtime, "VOLUME")).toBe("/data");
    expect(one(runtime, "EXPOSE")).toBe("3000");
    expect(one(runtime, "STOPSIGNAL")).toBe("SIGTERM");
    expect(one(runtime, "WORKDIR")).toBe("/app");
    expect(one(build, "WORKDIR")).toBe("/app");
    const health = one(runtime, "HEALTHCHECK");
    expect(health).toMatch(/^--interval=\S+ --timeout=\S+ --start-period=\S+ --retries=\d+ CMD \[/);
    expect(JSON.parse(health.slice(health.indexOf("CMD ") + 4))[0]).toBe("node");
    expect(health).toContain("/healthz");
  });

  it("copies into the runtime stage only build outputs and sources the build context has", () => {
    const ignored = read(".dockerignore")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith("#") && !l.startsWith("!"));
    for (const copy of all(runtime, "COPY")) {
      const m = /^--from=build \/app\/(\S+) \.\/(\S+)$/.exec(copy);
      expect(m, copy).not.toBeNull();
      expect(m![2]).toBe(m![1]);
      // Made in the image (npm ci, npm run build), or sent in the build context.
      if (m![1] !== "node_modules" && m![1] !== ".next") expect(ignored, copy).not.toContain(m![1]);
    }
    for (const made of ["node_modules", ".next", "lib/db/generated", ".env"]) expect(ignored).toContain(made);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** A hard-linked copy (fast; files that the steps rewrite in place are copied instead). */
function linkCopy(from: string, to: string) {
  mkdirSync(path.dirname(to), { recursive: true });
  execFileSync("cp", ["-al", from, to]);
}

describe("the image's steps, run here", () => {
  const uid = process.getuid?.() === 0 ? 10001 : undefined;
  const redisUrl = testRedisUrl(8); // a database of its own on the shared Redis
  let work: string;
  let buildDir: string;
  let appDir: string;
  let dataDir: string;
  let dbName: string | undefined;
  let env: Record<string, string>;
  let server: ChildProcess | undefined;
  let exited: Promise<number | null>;
  let output = "";

  beforeAll(async () => {
    // `npm run build`, unless the repo's build is of these sources already (scripts/start.mjs's test).
    const marker = path.join(root, ".next/qiao-fingerprint");
    const fresh = existsSync(marker) && existsSync(path.join(root, SERVER_BUNDLE)) && readFileSync(marker, "utf8") === buildFingerprint();
    if (!fresh) execSync("npm run build", { cwd: root, stdio: "inherit" });

    work = mkdtempSync(path.join(os.tmpdir(), "qiao-docker-"));
    chmodSync(work, 0o755);
    // The build stage's /app after `npm run build`: what it reads and made.
    buildDir = path.join(work, "build");
    mkdirSync(buildDir);
    for (const entry of ["node_modules", ".next", "public", "scripts", "next.config.ts"])
      linkCopy(path.join(root, entry), path.join(buildDir, entry));
    for (const file of ["package.json", "package-lock.json", "node_modules/.package-lock.json"]) {
      rmSync(path.join(buildDir, file), { force: true });
      copyFileSync(path.join(root, file), path.join(buildDir, file));
    }
    // The steps after the build, exactly as the Dockerfile writes them (npm offline: it needs nothing new).
    for (const run of buildRuns().slice(BUILD_COMMANDS.indexOf("npm run build") + 1)) {
      execSync(run, { cwd: buildDir, stdio: "pipe", env: { ...process.env, npm_config_offline: "true" } });
    }
    // The runtime stage: its COPYs into an empty /app.
    appDir = path.join(work, "app");
    mkdirSync(appDir);
    for (const copy of all(runtime, "COPY")) {
      const src = /^--from=build \/app\/(\S+) /.exec(copy)![1]!;
      expect(existsSync(path.join(buildDir, src)), `${src} in the build stage`).toBe(true);
      linkCopy(path.join(buildDir, src), path.join(appDir, src));
    }
    dataDir = path.join(work, "data");
    mkdirSync(dataDir);
    if (uid !== undefined) chownSync(dataDir, uid, uid);

    // A fresh, empty database: the master migrates it and creates root.
    dbName = `qiao_docker_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
    const admin = new pg.Client({ connectionString: PG_ADMIN_DSN });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();

    // The image's ENV, qiao1's environment and env file (its example, secrets filled in), then
    // what differs on this machine: the local services, loopback, a free port, a scratch /data.
    const fileEnv = parseEnvFile(read("deploy/qiao.env.example"));
    env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      ...envOf(runtime),
      ...fileEnv,
      SESSION_SECRET: randomBytes(32).toString("base64url"),
      CRYPTO_SECRET: randomBytes(32).toString("base64url"),
      ...Object.fromEntries(Object.entries(services.qiao1!.environment!).map(([k, v]) => [k, String(v)])),
      SQL_DSN: `postgres://postgres@127.0.0.1:5432/${dbName}`,
      REDIS_CONN_STRING: redisUrl,
      HOST: "127.0.0.1",
      PORT: String(await freePort()),
      DATA_DIR: dataDir,
      RELAY_WORKERS: "2",
    };
    const cmd = JSON.parse(one(runtime, "CMD")) as string[];
    const child = spawn(cmd[0] === "node" ? process.execPath : cmd[0]!, cmd.slice(1), {
      cwd: appDir,
      env: env as NodeJS.ProcessEnv,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      ...(uid === undefined ? {} : { uid, gid: uid }),
    });
    child.stdout!.on("data", (d) => (output += d));
    child.stderr!.on("data", (d) => (output += d));
    exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
    server = child;
  }, 600_000);

  afterAll(async () => {
    try {
      if (server?.pid && server.exitCode === null) process.kill(-server.pid, "SIGKILL");
    } catch {
      // gone already
    }
    if (dbName) {
      const admin = new pg.Client({ connectionString: PG_ADMIN_DSN });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await admin.end();
    }
    const redis = createClient({ url: redisUrl });
    await redis.connect();
    for await (const keys of redis.scanIterator({ MATCH: "qiao:*" })) if (keys.length) await redis.del(keys);
    await redis.quit();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const url = () => `http://127.0.0.1:${env.PORT}`;
  /** The image's HEALTHCHECK command, run as Docker would inside the container. */
  const healthcheck = () => {
    const args = one(runtime, "HEALTHCHECK");
    const cmd = JSON.parse(args.slice(args.indexOf("CMD ") + 4)) as string[];
    return spawnSync(process.execPath, cmd.slice(1), { env: env as NodeJS.ProcessEnv, cwd: appDir, timeout: 10_000 }).status;
  };

  it("installs from the lockfile as it is: npm ci accepts package.json and package-lock.json together", () => {
    const dir = path.join(work, "ci");
    mkdirSync(dir);
    for (const file of ["package.json", "package-lock.json"]) copyFileSync(path.join(root, file), path.join(dir, file));
    execSync(`${BUILD_COMMANDS[0]} --dry-run`, { cwd: dir, stdio: "pipe", env: { ...process.env, npm_config_offline: "true" } });
  });

  it("prunes to production packages: no dev tool, no build cache, the native SQLite binding kept", () => {
    for (const gone of ["vitest", "@playwright/test", "@biomejs/biome", "prisma", "typescript", "effect"]) {
      expect(existsSync(path.join(appDir, "node_modules", gone)), gone).toBe(false);
    }
    expect(existsSync(path.join(appDir, ".next/cache"))).toBe(false);
    expect(existsSync(path.join(appDir, "node_modules/better-sqlite3/build/Release/better_sqlite3.node"))).toBe(true);
    expect(existsSync(path.join(appDir, SERVER_BUNDLE))).toBe(true);
  });

  it("serves from the runtime tree: healthy, ready on PostgreSQL and Redis, root signs in; SIGTERM exits 0", async () => {
    for (;;) {
      if (server!.exitCode !== null) throw new Error(`the server exited (${server!.exitCode}):\n${output}`);
      const up = await fetch(`${url()}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (up) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(await (await fetch(`${url()}/healthz`)).json()).toEqual({ status: "ok" });
    const ready = await fetch(`${url()}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: "ready",
      checks: { database: { ok: true }, migrations: { ok: true, pending: [] }, redis: { ok: true, configured: true }, draining: false },
    });
    expect(healthcheck()).toBe(0);

    const login = await fetch(`${url()}/api/user/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "root", password: "123456" }),
    });
    expect(login.status).toBe(200);
    expect(await login.json()).toMatchObject({ success: true, data: { username: "root" } });
    expect(login.headers.get("set-cookie")).toBeTruthy();
    // A console page renders from the copied .next (Next in the console process), with the
    // headers next.config.ts declares.
    const page = await fetch(`${url()}/login`);
    expect(page.status).toBe(200);
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    // public/ is served from the copy too.
    const logo = await fetch(`${url()}/logo.png`);
    expect(logo.status).toBe(200);
    expect(Buffer.from(await logo.arrayBuffer()).equals(readFileSync(path.join(root, "public/logo.png")))).toBe(true);

    // The env file's secret signs sessions: none was generated into /data.
    expect(existsSync(path.join(dataDir, "session_secret"))).toBe(false);
    if (uid !== undefined) {
      const owners = execFileSync("ps", ["-o", "uid=", "--ppid", String(server!.pid)], { encoding: "utf8" })
        .trim()
        .split(/\s+/);
      expect(new Set(owners)).toEqual(new Set([String(uid)]));
    }

    server!.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(healthcheck()).toBe(1);
  }, 120_000);
});

describe("docker-compose.yml", () => {
  const [first, second] = qiaoNames.map((n) => services[n]!);

  it("runs PostgreSQL 16 and Redis 7 with healthchecks and volumes", () => {
    expect(services.postgres!.image).toBe("postgres:16");
    expect(services.redis!.image).toBe("redis:7");
    for (const name of ["postgres", "redis"]) {
      const s = services[name]!;
      expect((s.healthcheck as { test: string[] }).test.length, name).toBeGreaterThan(1);
      for (const v of s.volumes as string[]) expect(Object.keys(compose.volumes)).toContain(v.split(":")[0]);
    }
  });

  it("runs two replicas of one image that differ only in NODE_TYPE and their /data", () => {
    expect(qiaoNames).toEqual(["qiao1", "qiao2"]);
    expect(first!.image).toBe(second!.image);
    expect(first!.build).toBe(".");
    expect(second!.build).toBe(".");
    expect(first!.environment!.NODE_TYPE).toBe("master");
    expect(second!.environment!.NODE_TYPE).toBe("slave");
    expect({ ...first!.environment, NODE_TYPE: null }).toEqual({ ...second!.environment, NODE_TYPE: null });
    const rest = (s: Service) => ({ ...s, environment: null, volumes: null, depends_on: null });
    expect(rest(first!)).toEqual(rest(second!));
    expect(first!.volumes).toEqual(["qiao1-data:/data"]);
    expect(second!.volumes).toEqual(["qiao2-data:/data"]);
    for (const s of [first!, second!]) {
      // No healthcheck override: the image's (/healthz) applies.
      expect(s.healthcheck).toBeUndefined();
      expect(s.init).toBe(true);
      expect(s.ports).toBeUndefined();
      // The grace period covers SHUTDOWN_TIMEOUT and the primary's 15 s after it.
      expect(Number(/^(\d+)s$/.exec(String(s.stop_grace_period))![1])).toBeGreaterThan(Number(s.environment!.SHUTDOWN_TIMEOUT) + 15);
      expect(s.depends_on).toMatchObject({ postgres: { condition: "service_healthy" }, redis: { condition: "service_healthy" } });
      expect(new URL(String(s.environment!.REDIS_CONN_STRING)).hostname).toBe("redis");
    }
    // The slave starts on a migrated database.
    expect(second!.depends_on).toMatchObject({ qiao1: { condition: "service_healthy" } });
  });

  it("shares the secrets and the database through one env file the PostgreSQL service reads too", () => {
    expect(first!.env_file).toBe("deploy/qiao.env");
    expect(services.postgres!.env_file).toBe("deploy/qiao.env");
    expect(read(".gitignore")).toContain("/deploy/qiao.env");
    const example = parseEnvFile(read("deploy/qiao.env.example"));
    expect(Object.keys(example).sort()).toEqual(["CRYPTO_SECRET", "POSTGRES_PASSWORD", "SESSION_SECRET", "SQL_DSN"]);
    const dsn = new URL(example.SQL_DSN!);
    const pgEnv = services.postgres!.environment!;
    expect(dsn.hostname).toBe("postgres");
    expect(dsn.username).toBe(pgEnv.POSTGRES_USER);
    expect(dsn.password).toBe(example.POSTGRES_PASSWORD);
    expect(dsn.pathname).toBe(`/${pgEnv.POSTGRES_DB}`);
  });

  it("puts a streaming-friendly, /readyz-checked proxy on port 3000 in front of exactly the replicas", () => {
    const proxy = services.proxy!;
    expect(proxy.ports).toEqual(["3000:3000"]);
    const mount = (proxy.volumes as string[]).find((v) => v.endsWith(":/etc/caddy/Caddyfile:ro"))!;
    const caddy = parseCaddyProxy(read(mount.split(":")[0]!));
    expect(caddy.listen).toBe(3000);
    const port = Number(one(runtime, "EXPOSE"));
    expect(caddy.upstreams).toEqual(qiaoNames.map((n) => `${n}:${port}`));
    expect(caddy.directives).toMatchObject({ health_uri: "/readyz", health_status: "200", flush_interval: "-1", versions: "1.1" });
    expect(caddy.directives.keepalive).toMatch(/^\d+s$/);
    expect(proxy.depends_on).toEqual(Object.fromEntries(qiaoNames.map((n) => [n, { condition: "service_healthy" }])));
    // Only the proxy publishes a port.
    expect(Object.entries(services).filter(([, s]) => s.ports)).toHaveLength(1);
  });

  it("is read strictly: shapes the reader does not know are refused", () => {
    expect(() => parseYamlSubset("a: &x 1\nb: *x\n")).toThrow(/unsupported/);
    expect(() => parseYamlSubset("a: 1\na: 2\n")).toThrow(/duplicate/);
    expect(() => parseYamlSubset("a: |\n  text\n")).toThrow(/unsupported/);
    expect(parseYamlSubset('s:\n  x:\n    - "3000:3000"\n    - a:/b\n  y: ["CMD", "ping"]\n  z: true # note\n')).toEqual({
      s: { x: ["3000:3000", "a:/b"], y: ["CMD", "ping"], z: true },
    });
  });
});
