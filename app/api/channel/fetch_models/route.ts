import { route } from "@/lib/api/route";
import { fetchFormModels, fetchModelsSchema } from "@/lib/relay/probe/fetch-models";

/** The editor's unsaved form: {type, base_url, key} → the upstream's model ids. */
export const POST = route({ auth: "admin", body: fetchModelsSchema, handler: ({ body, caller }) => fetchFormModels(body, caller) });
