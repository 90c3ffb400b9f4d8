// The console playground: the relay pipeline with the console session instead of an API key.
import { relayWebRequest } from "@/lib/relay/doors/web";

export const dynamic = "force-dynamic";

export const POST = relayWebRequest;
