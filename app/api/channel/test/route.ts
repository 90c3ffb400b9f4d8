import { route, ok } from "@/lib/api/route";
import { testAllChannels } from "@/lib/channels/test";

export const GET = route({
  auth: "admin",
  handler: () => (testAllChannels() ? ok(null, "已开始测试所有通道，请刷新页面查看结果") : ok(null, "测试已在进行中")),
});
