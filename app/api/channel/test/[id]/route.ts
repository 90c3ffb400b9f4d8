import { z } from "zod";
import { route } from "@/lib/api/route";
import { CHANNEL_MSG } from "@/lib/channels/schemas";
import { idParam } from "@/lib/db/paging";
import { testChannel } from "@/lib/relay/probe/test";

export const GET = route({
  auth: "admin",
  query: z.object({ model: z.string().trim().optional() }),
  handler: async ({ params, query, caller }) => {
    const { success, message, time } = await testChannel(idParam(params.id, CHANNEL_MSG.notFound), caller, query.model || undefined);
    // new-api's shape: time in seconds beside the envelope fields.
    return new Response(JSON.stringify({ success, message, time: time / 1000 }), { headers: { "content-type": "application/json" } });
  },
});
