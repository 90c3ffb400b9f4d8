import { z } from "zod";
import { route } from "@/lib/api/route";
import { auditBy } from "@/lib/audit/write";
import { listOptions, updateOption } from "@/lib/options";

// The settings pages send numbers and booleans as they come from their inputs; options are strings.
const optionBody = z.object({
  key: z.string().min(1),
  value: z.union([z.string(), z.number(), z.boolean()]).transform(String),
});

export const GET = route({ auth: "root", handler: () => listOptions() });

export const PUT = route({
  auth: "root",
  body: optionBody,
  handler: async ({ body, caller, req }) => {
    await updateOption(body.key, body.value, auditBy(caller, req));
    return null;
  },
});
