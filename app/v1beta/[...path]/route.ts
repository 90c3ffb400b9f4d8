// Gemini-protocol relay paths (/v1beta/models/{model}:generateContent…) served through Next.
// `npm start` answers them before Next from the same core over Node's http (server.ts).
import { relayWebRequest } from "@/lib/relay/doors/web";

export const dynamic = "force-dynamic";

export const GET = relayWebRequest;
export const POST = relayWebRequest;
export const OPTIONS = relayWebRequest;
