// GET /metrics: the Prometheus text, behind a bearer token. The token is METRICS_TOKEN when set,
// else the MetricsToken option; none set means /metrics does not exist (404). A wrong or missing
// token is 401. Served by the relay workers of `npm start` (the whole instance, lib/server/metrics-ipc.ts)
// and by app/metrics/route.ts under plain `next start` (that process alone).
import { createHash, timingSafeEqual } from "node:crypto";
import { env } from "@/lib/env";
import { metricsRegistry } from "@/lib/metrics/registry";
import { getOptions, loadedOptions } from "@/lib/options";

export const METRICS_PATH = "/metrics";

export type MetricsAnswer = { status: number; headers: Record<string, string>; body: string };

const TEXT = { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" };

/** The token scrapes must present; "" when /metrics is off. */
export async function metricsToken(): Promise<string> {
  if (env.METRICS_TOKEN) return env.METRICS_TOKEN;
  const options = loadedOptions() ?? (await getOptions());
  return String(options.MetricsToken ?? "");
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Whether `authorization` is `Bearer <token>`; compared in constant time (over digests, so lengths do not show). */
export function bearerMatches(authorization: string | null | undefined, token: string): boolean {
  const given = /^Bearer\s+(.+)$/i.exec(authorization?.trim() ?? "")?.[1] ?? "";
  return timingSafeEqual(digest(given), digest(token)) && given.length > 0;
}

/**
 * The answer to GET /metrics with `authorization`; `collect` gives the exposition text (this
 * process's registry by default; null when it could not be gathered).
 */
export async function metricsAnswer(
  authorization: string | null | undefined,
  collect: () => Promise<string | null> = () => metricsRegistry.metrics(),
): Promise<MetricsAnswer> {
  const token = await metricsToken();
  if (!token) return { status: 404, headers: TEXT, body: "Not Found\n" };
  if (!bearerMatches(authorization, token)) {
    return { status: 401, headers: { ...TEXT, "www-authenticate": 'Bearer realm="metrics"' }, body: "Unauthorized\n" };
  }
  const text = await collect();
  if (text === null) return { status: 503, headers: TEXT, body: "metrics unavailable: the processes did not answer\n" };
  return { status: 200, headers: { "content-type": metricsRegistry.contentType, "cache-control": "no-store" }, body: text };
}
