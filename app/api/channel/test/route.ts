import { ok, route } from "@/lib/api/route";
import { testAllChannels } from "@/lib/relay/probe/test";

/** Starts testing all channels in the background; data is the run's record (poll GET /api/channel/jobs). */
export const GET = route({
  auth: "admin",
  handler: async ({ caller }) => {
    const { started, job } = await testAllChannels(caller);
    return ok(job, started ? "已开始测试所有通道，请刷新页面查看结果" : "测试已在进行中");
  },
});
