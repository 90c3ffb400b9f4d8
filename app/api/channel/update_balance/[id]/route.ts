import { route } from "@/lib/api/route";
import { updateChannelBalance } from "@/lib/relay/probe/balance";
import { parseChannelId } from "@/lib/channels/schemas";

/** data: the channel's balance in US$, as stored. */
export const GET = route({ auth: "admin", handler: ({ params }) => updateChannelBalance(parseChannelId(params.id)) });
