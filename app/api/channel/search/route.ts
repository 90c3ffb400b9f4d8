import { route } from "@/lib/api/route";
import { channelSearchQuery } from "@/lib/channels/schemas";
import { searchChannels } from "@/lib/channels/query";

export const GET = route({ auth: "admin", query: channelSearchQuery, handler: ({ query }) => searchChannels(query) });
