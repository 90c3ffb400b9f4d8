import { z } from "zod";
import { route } from "@/lib/api/route";
import { testChannel } from "@/lib/channels/test";

const idParam = (raw: string | undefined) => {
  const id = Number(raw);
  return Number.isInteger(id) && id > 0 ? id : 0;
};

export const GET = route({
  auth: "admin",
  query: z.object({ model: z.string().trim().optional() }),
  handler: async ({ params, query }) => {
    const { success, message, time } = await testChannel(idParam((params as { id?: string }).id), query.model || undefined);
    // new-api's shape: time in seconds beside the envelope fields.
    return new Response(JSON.stringify({ success, message, time: time / 1000 }), { headers: { "content-type": "application/json" } });
  },
});
