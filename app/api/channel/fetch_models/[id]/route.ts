import { route } from "@/lib/api/route";
import { fetchChannelModels } from "@/lib/relay/probe/fetch-models";
import { CHANNEL_MSG } from "@/lib/channels/schemas";
import { idParam } from "@/lib/db/paging";

/** A stored channel → the model ids its upstream lists. */
export const GET = route({ auth: "admin", handler: ({ params }) => fetchChannelModels(idParam(params.id, CHANNEL_MSG.notFound)) });
