import { route } from "@/lib/api/route";
import { parseChannelId } from "@/lib/channels/schemas";
import { getChannel } from "@/lib/channels/query";
import { deleteChannel } from "@/lib/channels/manage";

export const GET = route({
  auth: "admin",
  handler: ({ params }) => getChannel(parseChannelId(params.id)),
});

export const DELETE = route({
  auth: "admin",
  handler: ({ params }) => deleteChannel(parseChannelId(params.id)),
});
