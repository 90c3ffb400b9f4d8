import { route } from "@/lib/api/route";
import { auditBy } from "@/lib/audit/write";
import { channelCreateSchema, channelListQuery, channelUpdateSchema } from "@/lib/channels/schemas";
import { listChannels } from "@/lib/channels/query";
import { createChannels, updateChannel } from "@/lib/channels/manage";

export const GET = route({ auth: "admin", query: channelListQuery, handler: ({ query }) => listChannels(query) });

export const POST = route({
  auth: "admin",
  body: channelCreateSchema,
  handler: ({ body, caller, req }) => createChannels(body, caller, auditBy(caller, req)),
});

export const PUT = route({
  auth: "admin",
  body: channelUpdateSchema,
  handler: ({ body, caller, req }) => updateChannel(body, caller, auditBy(caller, req)),
});
