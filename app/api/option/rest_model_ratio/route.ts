import { ok, route } from "@/lib/api/route";
import { resetModelRatio } from "@/lib/options";

export const POST = route({
  auth: "root",
  handler: async ({ caller }) => {
    await resetModelRatio(caller);
    return ok(null, "重置模型倍率成功");
  },
});
