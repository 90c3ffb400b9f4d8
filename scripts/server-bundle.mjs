// The esbuild options of the server entry `npm start` runs (server.ts and the lib/ code it loads),
// apart from scripts/build.mjs so that tests can build it the same way and read what each role loads.
import path from "node:path";
import { SERVER_BUNDLE } from "./fingerprint.mjs";

/**
 * Packages stay in node_modules. Split into chunks: ESM imports load eagerly, so from one file
 * every process loaded every package any role uses (Next and OpenTelemetry in the relay workers,
 * Prisma in the primary); each role now loads only its own chunks (tests/hygiene/server-bundle.test.ts).
 */
export function serverBundleOptions(root, outdir = path.dirname(path.join(root, SERVER_BUNDLE))) {
  return {
    // body-worker: the relay's thread for large request bodies (lib/relay/request/body-thread.ts finds it here).
    entryPoints: {
      [path.basename(SERVER_BUNDLE, ".mjs")]: path.join(root, "server.ts"),
      "body-worker": path.join(root, "lib/relay/request/body-worker.ts"),
    },
    outdir,
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: `node${process.versions.node.split(".")[0]}`,
    packages: "external",
    sourcemap: true,
    logLevel: "warning",
  };
}
