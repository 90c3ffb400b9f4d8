import { ok, route } from "@/lib/api/route";
import { BALANCE_MSG, updateAllChannelBalances } from "@/lib/relay/probe/balance";

/** Starts updating the balances of all enabled channels in the background; data is the run's record (poll GET /api/channel/jobs). */
export const GET = route({
  auth: "admin",
  handler: async () => {
    const { started, job } = await updateAllChannelBalances();
    return ok(job, started ? BALANCE_MSG.started : BALANCE_MSG.alreadyRunning);
  },
});
