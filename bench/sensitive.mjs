// The sensitive-word filter (lib/relay/request/sensitive.ts) on a long prompt against a long list: the
// automaton's build time, and the time to scan a prompt that contains no listed word (the whole
// text is read) beside a plain loop of `includes` over the list. No server.
//   node bench/sensitive.mjs [--words 10000] [--mb 2] [--rounds 5]
import { importProduct, parseArgs } from "./lib.mjs";

const args = parseArgs();
const wordCount = Number(args.words ?? 10_000);
const mb = Number(args.mb ?? 2);
const rounds = Number(args.rounds ?? 5);

const { WordMatcher, sensitiveWordList, findSensitiveWord } = await importProduct("sensitive", [
  'export * from "./lib/relay/request/sensitive.ts";',
]);

// Deterministic pseudo-random words (4–10 letters, some Chinese) and prose made of other words.
let seed = 42;
const rand = (n) => {
  seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
  return seed % n;
};
const latin = "abcdefghijklmnopqrstuvwxyz";
const han =
  "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长";
const word = (alphabet, min, max) => Array.from({ length: min + rand(max - min + 1) }, () => alphabet[rand(alphabet.length)]).join("");
const listed = new Set();
while (listed.size < wordCount) listed.add(rand(5) === 0 ? word(han, 2, 4) : `${word(latin, 4, 10)}q`);
const raw = [...listed].join("\n");
// Prose: latin words never end in "q" here (so no listed latin word occurs); Chinese only as
// single characters between spaces (no listed 2–4 character word occurs).
const parts = [];
let size = 0;
while (size < mb * 1024 * 1024) {
  const w = rand(8) === 0 ? han[rand(han.length)] : word(latin.replace("q", ""), 2, 9);
  parts.push(w);
  size += w.length + 1;
}
const prompt = parts.join(" ");

const ms = (f) => {
  const t = process.hrtime.bigint();
  const out = f();
  return { out, ms: Number(process.hrtime.bigint() - t) / 1e6 };
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const words = sensitiveWordList(raw);
const built = [];
let matcher;
for (let r = 0; r < rounds; r++) {
  const b = ms(() => new WordMatcher(words));
  matcher = b.out;
  built.push(b.ms);
}
const body = { model: "gpt-4o-mini", messages: [{ role: "user", content: prompt }] };
const scans = [];
for (let r = 0; r < rounds; r++) {
  const s = ms(() => findSensitiveWord(body, matcher));
  if (s.out !== null) throw new Error(`unexpected hit ${s.out}`);
  scans.push(s.ms);
}
const hitAtEnd = { messages: [{ role: "user", content: `${prompt} ${[...listed][wordCount - 1]}` }] };
const endHit = ms(() => findSensitiveWord(hitAtEnd, matcher));
if (endHit.out === null) throw new Error("missed the word at the end");
const lower = prompt.toLowerCase();
// The floor: one pass over the text reading each code unit (what any scan must at least do).
const floor = [];
const table = new Uint16Array(65536);
for (let r = 0; r < rounds; r++) {
  floor.push(
    ms(() => {
      let x = 0;
      for (let i = 0; i < lower.length; i++) x += table[lower.charCodeAt(i)];
      return x;
    }).ms,
  );
}
// The loop of `includes` the automaton replaces, once (it is slow).
const naive = ms(() => words.some((w) => lower.includes(w)));

console.log(`sensitive words: ${words.length} words, prompt ${(prompt.length / 1024 / 1024).toFixed(2)} M chars, ${rounds} rounds`);
console.log(`  build automaton          median ${median(built).toFixed(1)} ms`);
console.log(`  scan, no hit (whole text) median ${median(scans).toFixed(1)} ms (min ${Math.min(...scans).toFixed(1)})`);
console.log(`  scan, hit at the end      ${endHit.ms.toFixed(1)} ms`);
console.log(`  floor: read every char    median ${median(floor).toFixed(1)} ms`);
console.log(`  loop of includes, no hit  ${naive.ms.toFixed(1)} ms (once)`);
