// GET /metrics (Prometheus) under plain `next start`: this process's metrics. Under `npm start` the
// relay workers answer it themselves, for the whole instance (lib/server/relay-worker.ts).
import { metricsAnswer } from "@/lib/metrics/scrape";
import { measureRelayState } from "@/lib/server/metrics-sources";

export const dynamic = "force-dynamic";

measureRelayState();

export async function GET(request: Request): Promise<Response> {
  const a = await metricsAnswer(request.headers.get("authorization"));
  return new Response(a.body, { status: a.status, headers: a.headers });
}
