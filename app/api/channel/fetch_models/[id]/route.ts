import { route } from "@/lib/api/route";
import { fetchChannelModels } from "@/lib/relay/probe/fetch-models";
import { parseChannelId } from "@/lib/channels/schemas";

/** A stored channel → the model ids its upstream lists. */
export const GET = route({ auth: "admin", handler: ({ params }) => fetchChannelModels(parseChannelId(params.id)) });
