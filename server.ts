// `npm start` entry (scripts/start.mjs runs it). One file, three roles:
//   primary        starts the others and passes messages between them (lib/server/primary.ts)
//   relay worker   node:cluster workers sharing PORT: relay paths from the transport-agnostic
//                  core in lib/relay, everything else to the console (lib/server/relay-worker.ts)
//   console        Next on a private Unix socket (lib/server/console.ts)
// Next never loads in a relay worker: the relay's hot path has its process to itself.
import cluster from "node:cluster";
import { fileURLToPath } from "node:url";
import { env } from "@/lib/env";
import { flushLog, logger } from "@/lib/log";

async function main() {
  if (env.QIAO_ROLE === "console") {
    const { runConsole } = await import("@/lib/server/console");
    await runConsole(env.QIAO_CONSOLE_SOCKET);
  } else if (cluster.isWorker) {
    const { runRelayWorker } = await import("@/lib/server/relay-worker");
    await runRelayWorker();
  } else {
    const { runPrimary } = await import("@/lib/server/primary");
    runPrimary(fileURLToPath(import.meta.url));
  }
}

main().catch((error) => {
  logger.fatal({ err: error }, "failed to start");
  flushLog();
  process.exit(1);
});
