// The scrape-time gauges' sources in a process that runs the relay (a relay worker, the console,
// plain `next start`): the channels as the relay's routing table has them, the breakers this
// process follows, and the ledger's holds. Read only when /metrics is scraped.
import { blockedChannels } from "@/lib/channels/breaker";
import { CHANNEL_STATUS } from "@/lib/channels/fields";
import { setMetricsSources } from "@/lib/metrics/registry";
import { type RoutingTable, routingTable } from "@/lib/relay/memory/key-user-channel-cache";
import { readyLedger } from "@/lib/relay/memory/runtime";

/** Channels enabled and disabled (as the routing table has them), and those whose breaker is not closed. */
export function channelStates(table: RoutingTable): { enabled: number; disabled: number; open: number } {
  let enabled = 0;
  for (const channel of table.byId.values()) if (channel.row.status === CHANNEL_STATUS.enabled) enabled++;
  return { enabled, disabled: table.byId.size - enabled, open: blockedChannels.size };
}

/** Lets this process's gauges read the relay's state. */
export function measureRelayState(): void {
  setMetricsSources({
    // The table is in memory once the relay served a call; before that, the first scrape loads it.
    channels: async () => channelStates(await routingTable()),
    holds: () => readyLedger()?.holdStats() ?? null,
  });
}
