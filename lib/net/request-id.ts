// Request ids of relay calls and console API errors: UTC yyyyMMddHHmmss, 4 base36 chars of a
// process counter and 6 random base36 chars (24 chars). Unique within a process unless it serves > 1.6 M requests in one second; across
// processes the random suffix makes a clash a 1-in-2-billion event per same-second pair.
const B36 = "0123456789abcdefghijklmnopqrstuvwxyz";
let randomPool = new Uint8Array(0);
let randomPos = 0;
let counter = 0;
let cachedSecond = -1;
let cachedStamp = "";

function stampFor(second: number): string {
  if (second !== cachedSecond) {
    cachedSecond = second;
    // ISO "2024-12-04T15:30:12.000Z" → "20241204153012"
    const iso = new Date(second * 1000).toISOString();
    cachedStamp = iso.slice(0, 4) + iso.slice(5, 7) + iso.slice(8, 10) + iso.slice(11, 13) + iso.slice(14, 16) + iso.slice(17, 19);
  }
  return cachedStamp;
}

export function newRequestId(now: number = Date.now()): string {
  if (randomPos + 6 > randomPool.length) {
    randomPool = crypto.getRandomValues(new Uint8Array(1536));
    randomPos = 0;
  }
  counter = (counter + 1) % 1679616; // 36^4
  let c = counter;
  let ctr = "";
  for (let i = 0; i < 4; i++) {
    ctr = B36[c % 36] + ctr;
    c = Math.floor(c / 36);
  }
  let rnd = "";
  for (let i = 0; i < 6; i++) rnd += B36[randomPool[randomPos++] % 36];
  return stampFor(Math.floor(now / 1000)) + ctr + rnd;
}
