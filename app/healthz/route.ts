// GET /healthz: the process answers (no database). Under `npm start` the relay workers answer it
// themselves (lib/server/relay-worker.ts); this serves plain `next start`.
import { HEALTH_PATH, healthAnswer } from "@/lib/server/health";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  const a = await healthAnswer(HEALTH_PATH);
  return new Response(a.body, { status: a.status, headers: a.headers });
}
