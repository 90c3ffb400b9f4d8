// The stream relay's reading of chunks that arrive before the first token, many in one read of
// the socket (lib/relay/openai/stream-relay.ts): a fast upstream, or one that sends empty
// chunks while it thinks, hands over hundreds at once. Each read is `--before` chunks with an
// empty content, then 6 with text and the usage chunk; prints CPU ns per chunk (median of the
// rounds) for each count. A cost that grows with the count grows with the square of the read.
// Then one long chunk (1, 4 and 12 MB) read in 16 KiB pieces: CPU ms to read it all.
// No server.
//   node bench/stream-chunks.mjs [--before 1,8,100,500] [--reads 2000] [--rounds 5]
import { importProduct, parseArgs } from "./lib.mjs";

const args = parseArgs();
const counts = String(args.before ?? "1,8,100,500")
  .split(",")
  .map(Number);
const reads = Number(args.reads ?? 2000);
const rounds = Number(args.rounds ?? 5);

const { OpenAIStreamRelay } = await importProduct("stream-chunks", [
  'export { OpenAIStreamRelay } from "./lib/relay/openai/stream-relay.ts";',
]);

const chunk = (delta, extra = "") =>
  `data: {"id":"chatcmpl-b","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":${delta},"finish_reason":null}]${extra}}\n\n`;
const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};

console.log(
  `OpenAIStreamRelay.transform, one read holding N empty chunks, 6 text chunks, the usage chunk and [DONE]; ${reads} reads x ${rounds} rounds:`,
);
console.log("| empty chunks before the first token | bytes per read | CPU ns per chunk |");
console.log("| ----------------------------------: | -------------: | ---------------: |");
for (const n of counts) {
  const text =
    chunk('{"role":"assistant","content":""}') +
    chunk('{"content":""}').repeat(n - 1) +
    chunk('{"content":"Hello"}').repeat(6) +
    'data: {"id":"chatcmpl-b","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":6,"total_tokens":15}}\n\ndata: [DONE]\n\n';
  const bytes = Buffer.from(text);
  const chunks = n + 7;
  const perRound = Math.max(20, Math.floor((reads * 8) / Math.max(8, n)));
  const results = [];
  for (let r = 0; r < rounds; r++) {
    const start = cpuNs();
    for (let i = 0; i < perRound; i++) {
      const relay = new OpenAIStreamRelay({ mode: "chat", model: "gpt-4o-mini", clientIncludeUsage: true, promptTokens: 9 });
      relay.transform(bytes);
      relay.finish();
      if (relay.usage.completion_tokens !== 6) throw new Error(`usage not read: ${JSON.stringify(relay.usage)}`);
    }
    results.push((cpuNs() - start) / (perRound * chunks));
  }
  results.sort((a, b) => a - b);
  console.log(
    `| ${String(n).padStart(35)} | ${String(bytes.length).padStart(14)} | ${results[Math.floor(rounds / 2)].toFixed(0).padStart(16)} |`,
  );
}

// One long event (a chunk carrying an image's base64, say) read in 16 KiB pieces, as a socket
// hands it over: the time to read it all should grow with its size, not with its square.
console.log("");
console.log(`OpenAIStreamRelay.transform, one long chunk in 16 KiB reads, then the usage chunk; ${rounds} rounds:`);
console.log("| chunk size (MB) | reads | CPU ms to read it |");
console.log("| --------------: | ----: | ----------------: |");
for (const mb of [1, 4, 12]) {
  const long = Buffer.from(chunk(`{"content":"${"A".repeat(mb * 1024 * 1024)}"}`));
  const usageChunk = Buffer.from(
    'data: {"id":"chatcmpl-b","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":6,"total_tokens":15}}\n\n',
  );
  const piece = 16 * 1024;
  const results = [];
  for (let r = 0; r < rounds; r++) {
    const relay = new OpenAIStreamRelay({ mode: "chat", model: "gpt-4o-mini", clientIncludeUsage: true, promptTokens: 9 });
    const start = cpuNs();
    for (let at = 0; at < long.length; at += piece) relay.transform(long.subarray(at, at + piece));
    relay.transform(usageChunk);
    relay.finish();
    results.push((cpuNs() - start) / 1e6);
    if (relay.usage.completion_tokens !== 6) throw new Error(`usage not read: ${JSON.stringify(relay.usage)}`);
  }
  results.sort((a, b) => a - b);
  console.log(
    `| ${String(mb).padStart(15)} | ${String(Math.ceil(long.length / piece)).padStart(5)} | ${results[Math.floor(rounds / 2)].toFixed(1).padStart(17)} |`,
  );
}
