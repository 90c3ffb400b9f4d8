// Relay paths served through Next (Vercel-style hosting, or `next start`). `npm start` answers
// them before Next from the same core over Node's http (server.ts), which is much faster.
import { relayWebRequest } from "@/lib/relay/doors/web";

export const dynamic = "force-dynamic";

export const GET = relayWebRequest;
export const POST = relayWebRequest;
export const PUT = relayWebRequest;
export const PATCH = relayWebRequest;
export const DELETE = relayWebRequest;
export const OPTIONS = relayWebRequest;
