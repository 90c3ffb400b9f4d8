import { ok, route } from "@/lib/api/route";
import { auditBy } from "@/lib/audit/write";
import { resetModelRatio } from "@/lib/options";

export const POST = route({
  auth: "root",
  handler: async ({ caller, req }) => {
    await resetModelRatio(auditBy(caller, req));
    return ok(null, "重置模型倍率成功");
  },
});
