// Suno's task routes served through Next (`next start`); `npm start` answers them before
// Next from the same core (lib/tasks/suno).
import { relayWebRequest } from "@/lib/relay/doors/web";

export const dynamic = "force-dynamic";

export const GET = relayWebRequest;
export const POST = relayWebRequest;
export const OPTIONS = relayWebRequest;
