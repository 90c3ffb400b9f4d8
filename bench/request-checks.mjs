// CPU cost of the checks issue 9 put on the relay's per-request path: the request rules (run on
// the body the pipeline has already parsed), the answer's content type, and, for comparison,
// the JSON.parse of a small chat body that was there before. Error-path work (masking) is shown
// too. Prints CPU nanoseconds per call (user + system, median of the rounds).
//   node bench/request-checks.mjs [--calls 2000000] [--rounds 5]
import { importProduct, parseArgs } from "./lib.mjs";

const args = parseArgs();
const calls = Number(args.calls ?? 2_000_000);
const rounds = Number(args.rounds ?? 5);

const { checkRequestBody, requestModel, answerContentType, maskSensitiveText } = await importProduct("request-checks", [
  'export { checkRequestBody, requestModel } from "./lib/relay/request/request-rules.ts";',
  'export { answerContentType } from "./lib/relay/openai/answer-type.ts";',
  'export { maskSensitiveText } from "./lib/net/mask.ts";',
]);

const rawBody = Buffer.from(
  JSON.stringify({
    model: "gpt-4o-mini",
    messages: [
      { role: "system", content: "You are a helpful assistant." },
      { role: "user", content: "Hello! How are you today?" },
    ],
    temperature: 0.7,
    max_tokens: 256,
  }),
);
const decoder = new TextDecoder();
const parsed = JSON.parse(decoder.decode(rawBody));
const answer = Buffer.from(
  '{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"}}]}',
);
const leaky =
  "Incorrect API key provided: sk-proj-Zx81pQ7mN2vB5cD9eF3gH6jKa4Ls0Tq. You can find your API key at https://platform.openai.com/account/api-keys.";

const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};

let sink = 0;
function measure(f, n) {
  const t0 = cpuNs();
  for (let i = 0; i < n; i++) sink += f();
  return (cpuNs() - t0) / n;
}

const cases = [
  ["loop baseline (a property read)", () => parsed.model.length, calls],
  ["JSON.parse of the chat body (already there)", () => JSON.parse(decoder.decode(rawBody)).model.length, calls / 10],
  [
    "requestModel + checkRequestBody(chat)",
    () => {
      checkRequestBody("chat", parsed);
      return requestModel(parsed, "").length;
    },
    calls,
  ],
  ["answerContentType, application/json", () => answerContentType("chat", "application/json", answer, undefined).length, calls],
  [
    "answerContentType, …json; charset=utf-8",
    () => answerContentType("chat", "application/json; charset=utf-8", answer, undefined).length,
    calls,
  ],
  ["maskSensitiveText (error path only)", () => maskSensitiveText(leaky).length, calls / 20],
];

const results = cases.map(() => []);
for (let r = 0; r < rounds; r++) cases.forEach(([, f, n], i) => results[i].push(measure(f, n)));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`| check | CPU ns per call (median of ${rounds}) |`);
console.log("| --- | --- |");
cases.forEach(([label], i) => console.log(`| ${label} | ${median(results[i]).toFixed(1)} |`));
if (sink === 0) console.log("(unreachable)");
