// Root only: admins manage channels but do not read upstream keys (new-api returns keys to any admin).
import { route } from "@/lib/api/route";
import { parseChannelId } from "@/lib/channels/schemas";
import { revealChannelKey } from "@/lib/channels/query";

export const POST = route({
  auth: "root",
  handler: ({ params }) => revealChannelKey(parseChannelId(params.id)),
});
