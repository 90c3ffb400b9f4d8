// The only module that reads process.env. Everything else imports `env` from here.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { processSingleton } from "@/lib/singleton";

const bool = (fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === "" ? fallback : /^(1|true|yes|on)$/i.test(v)));
const int = (fallback: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === "") return fallback;
      const n = Number(v);
      if (!Number.isInteger(n)) {
        ctx.addIssue({ code: "custom", message: `must be an integer, got "${v}"` });
        return z.NEVER;
      }
      return n;
    });
const str = (fallback = "") =>
  z
    .string()
    .optional()
    .transform((v) => (v ?? "").trim() || fallback);

/** An http(s) address without its trailing slashes. */
const baseUrl = (fallback: string) =>
  str(fallback)
    .transform((v) => v.replace(/\/+$/, ""))
    .refine((v) => /^https?:\/\/[^\s/]+/i.test(v), { message: "must be an http:// or https:// address" });

/** A shorter HMAC key is guessable offline from any one session cookie. */
export const SESSION_SECRET_MIN = 32;

const schema = z.object({
  NODE_ENV: str("development"),
  PORT: int(3000),
  HOST: str("0.0.0.0"),
  DATA_DIR: str("./data"),
  SQLITE_PATH: str(""),
  SQL_DSN: str(""),
  SQL_MAX_OPEN_CONNS: int(20),
  /** The `logs` table's own database (PostgreSQL or MySQL/MariaDB); empty: the logs stay in SQL_DSN's. */
  LOG_SQL_DSN: str(""),
  /** Signs session cookies (HS256): at least SESSION_SECRET_MIN characters, or empty to generate one. */
  SESSION_SECRET: str("").refine((v) => v === "" || v.length >= SESSION_SECRET_MIN, {
    message: `must be at least ${SESSION_SECRET_MIN} characters (unset it to have one generated into DATA_DIR)`,
  }),
  CRYPTO_SECRET: str(""),
  SESSION_MAX_AGE: int(30 * 24 * 3600),
  SYNC_FREQUENCY: int(60),
  REDIS_CONN_STRING: str(""),
  NODE_TYPE: str("master"),
  TRUSTED_PROXY_CIDR: str(""),
  RELAY_TIMEOUT: int(0),
  STREAMING_TIMEOUT: int(60),
  /** Seconds between SSE keep-alive comments while a stream is silent. */
  STREAM_KEEPALIVE: int(15),
  /**
   * On SIGTERM, seconds the streams in flight may run before they are cut (and settled for what
   * they delivered); then usage is written and holds returned, and the process exits.
   */
  SHUTDOWN_TIMEOUT: int(30).refine((n) => n >= 0, "must be 0 or more seconds"),
  /** A quota hold not refreshed for this long belonged to a stopped instance and is closed. */
  HOLD_STALE_SECONDS: int(300),
  /** Login, register and other sensitive calls per client IP per window. */
  CRITICAL_RATE_LIMIT: int(20),
  CRITICAL_RATE_LIMIT_DURATION: int(1200),
  /** Wrong passwords per account (and twice as many per client address) per CRITICAL_RATE_LIMIT_DURATION. */
  LOGIN_FAILURE_LIMIT: int(5),
  QIAO_REPOSITORY_URL: str("https://github.com/qiao-gateway/qiao"),
  /** Where Turnstile tokens are verified (Cloudflare's siteverify, or a compatible endpoint). */
  TURNSTILE_VERIFY_URL: str("https://challenges.cloudflare.com/turnstile/v0/siteverify"),
  /**
   * Where GitHub and LinuxDO sign-in talk to (lib/accounts/oauth/): a proxy in front of them, or a
   * mock provider on loopback in tests. Trailing slashes are dropped.
   */
  GITHUB_OAUTH_BASE_URL: baseUrl("https://github.com"),
  GITHUB_API_BASE_URL: baseUrl("https://api.github.com"),
  LINUXDO_BASE_URL: baseUrl("https://connect.linux.do"),
  /**
   * Where the Stripe package sends its API calls (Stripe's own API by default; a mock on loopback
   * in tests). Only scheme, host and port: the package takes no path.
   */
  STRIPE_API_BASE_URL: baseUrl("https://api.stripe.com").refine((v) => new URL(v).pathname === "/", {
    message: "must be an address without a path, e.g. http://127.0.0.1:4242",
  }),
  /** The Telegram Login Widget's script, which the login page and personal settings load (a mirror, or a mock in tests). */
  TELEGRAM_WIDGET_URL: str("https://telegram.org/js/telegram-widget.js?22"),
  SECURE_COOKIES: bool(false),
  /** The least severe server log line printed (lib/log.ts): fatal, error, warn, info, debug, trace or silent. */
  LOG_LEVEL: str("info")
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])),
  /** The bearer token GET /metrics requires; overrides the MetricsToken option when set (lib/metrics/scrape.ts). */
  METRICS_TOKEN: str(""),
  /** Relay processes `npm start` runs (they share PORT); 0 = one per CPU core, at most 8. */
  RELAY_WORKERS: int(0),
  /** Internal: the per-boot secret the primary of `npm start` hands to its children (clientIpSecret). */
  QIAO_CLIENT_IP_SECRET: str(""),
  /** Internal: "console" in the process the primary of `npm start` forks for Next. */
  QIAO_ROLE: str(""),
  /** Internal: the id the primary of `npm start` shares with its children (log lines, the Redis bus's origin). */
  QIAO_INSTANCE_ID: str(""),
  /** Internal: the Unix socket that console process listens on. */
  QIAO_CONSOLE_SOCKET: str(""),
  /** Largest request body /api reads, in bytes; a larger one is refused with 413. */
  API_MAX_BODY_BYTES: int(1024 * 1024).refine((n) => n > 0, "must be a positive number of bytes"),
  /**
   * Bytes of request bodies one relay process holds at once (read or being read, until the answer
   * ends); past it a call gets 503 with retry-after. One body alone is always admitted.
   */
  RELAY_BODY_BYTES_IN_FLIGHT: int(64 * 1024 * 1024).refine((n) => n > 0, "must be a positive number of bytes"),
});

export type Env = z.infer<typeof schema>;

function load(): Env {
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`invalid environment:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

export const env: Env = load();

export const dataDir = path.resolve(env.DATA_DIR);
export const sqlitePath = path.resolve(env.SQLITE_PATH || path.join(dataDir, "qiao.db"));
export const isProduction = env.NODE_ENV === "production";
export const isMaster = env.NODE_TYPE !== "slave";

/**
 * SESSION_SECRET, or one generated on first start and kept in DATA_DIR so sessions survive a
 * restart. Several instances must share one explicit SESSION_SECRET.
 */
export function sessionSecret(): string {
  if (env.SESSION_SECRET) return env.SESSION_SECRET;
  return processSingleton("sessionSecret", storedSessionSecret);
}

function storedSessionSecret(): string {
  const file = path.join(dataDir, "session_secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  try {
    writeFileSync(file, secret, { flag: "wx", mode: 0o600 });
    return secret;
  } catch {
    // Another process won the race: use what it wrote.
    return readFileSync(file, "utf8").trim();
  }
}

/**
 * The secret that proves a client address was set by a relay worker of this boot (see
 * lib/net/client-ip.ts). The primary of `npm start` makes one and passes it to the console and
 * the workers; any other process makes its own, which no client can know.
 */
export function clientIpSecret(): string {
  return processSingleton("clientIpSecret", () => env.QIAO_CLIENT_IP_SECRET || randomBytes(32).toString("base64url"));
}

/** How many relay workers `npm start` runs (RELAY_WORKERS, or one per core up to 8). */
export function relayWorkerCount(): number {
  if (env.RELAY_WORKERS > 0) return env.RELAY_WORKERS;
  return Math.max(1, Math.min(8, os.availableParallelism()));
}

/** Secret for encrypting stored keys; defaults to the session secret. */
export function cryptoSecret(): string {
  return env.CRYPTO_SECRET || sessionSecret();
}
