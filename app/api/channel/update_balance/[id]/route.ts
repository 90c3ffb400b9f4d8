import { route } from "@/lib/api/route";
import { updateChannelBalance } from "@/lib/relay/probe/balance";
import { CHANNEL_MSG } from "@/lib/channels/schemas";
import { idParam } from "@/lib/db/paging";

/** data: the channel's balance in US$, as stored. */
export const GET = route({ auth: "admin", handler: ({ params }) => updateChannelBalance(idParam(params.id, CHANNEL_MSG.notFound)) });
