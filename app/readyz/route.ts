// GET /readyz: database, migrations, Redis and draining (lib/server/health.ts). Under `npm start`
// the relay workers answer it themselves (lib/server/relay-worker.ts); this serves plain `next start`.
import { healthAnswer, READY_PATH } from "@/lib/server/health";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  const a = await healthAnswer(READY_PATH);
  return new Response(a.body, { status: a.status, headers: a.headers });
}
