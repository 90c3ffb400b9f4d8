// The SSRF guard against every known way around it. A loopback server on 127.0.0.1 and ::1 (port
// 5550) stands for the host's internal services: it must never see a request. A second loopback
// server on 127.0.0.3, same port, stands for a public host where a case needs a first hop to be
// allowed (redirects, rebinding, slow and large bodies, non-images): those fetches go through
// fetchUserUrlVia / fetchUserImageVia with an agent whose connector — the production connector —
// refuses every internal address except 127.0.0.3. DNS answers for made-up names come from a spy
// on node:dns (the resolver, not our code), so rebinding and multi-address answers can be staged.
import dns from "node:dns";
import http from "node:http";
import { Agent, type buildConnector } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  FETCH_URL_MSG,
  fetchUserImage,
  fetchUserImageVia,
  fetchUserUrl,
  fetchUserUrlVia,
  UserUrlError,
  type WorkerRequest,
} from "@/lib/net/fetch-url";
import { isInternalAddress } from "@/lib/net/ip";
import { InternalAddressError, publicOnlyConnector } from "@/lib/net/public-connect";
import { updateOption } from "@/lib/options";

const PORT = 5550;
const WORKER_PORT = 5551;
const PUBLIC_IP = "127.0.0.3";
const PUBLIC = `http://${PUBLIC_IP}:${PORT}`;
/** A 1×1 transparent PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");

const internalHits: string[] = [];
const publicHits: string[] = [];
const workerSeen: WorkerRequest[] = [];
/** Resolves when the slow answer's connection has been closed by the client. */
let slowClosed: Promise<void> = Promise.resolve();

const internalServer = () =>
  http.createServer((req, res) => {
    internalHits.push(`${req.socket.localAddress} ${req.url}`);
    res.writeHead(200, { "content-type": "image/png" });
    res.end(PNG);
  });
const servers: http.Server[] = [internalServer(), internalServer()];

const publicServer = http.createServer((req, res) => {
  publicHits.push(req.url ?? "");
  const url = new URL(req.url ?? "/", PUBLIC);
  switch (url.pathname) {
    case "/cat.png":
      res.writeHead(200, { "content-type": "image/png" });
      return res.end(PNG);
    case "/page":
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return res.end("<html>not an image</html>");
    case "/to":
      res.writeHead(Number(url.searchParams.get("status") ?? 302), { location: url.searchParams.get("url") ?? "/" });
      return res.end();
    case "/loop":
      res.writeHead(302, { location: "/loop" });
      return res.end();
    case "/big-declared":
      res.writeHead(200, { "content-type": "image/png", "content-length": "4096" });
      return res.end(Buffer.alloc(4096));
    case "/big-chunked":
      res.writeHead(200, { "content-type": "image/png" });
      for (let i = 0; i < 16; i++) res.write(Buffer.alloc(256));
      return res.end();
    case "/slow-body": {
      // Slowloris: headers at once, then one byte every 100 ms, for ever.
      res.writeHead(200, { "content-type": "image/png" });
      const timer = setInterval(() => res.write("x"), 100);
      slowClosed = new Promise((resolve) =>
        res.on("close", () => {
          clearInterval(timer);
          resolve();
        }),
      );
      return;
    }
    case "/slow-headers":
      slowClosed = new Promise((resolve) => res.on("close", () => resolve()));
      return;
    default:
      res.writeHead(404, { "content-type": "text/plain" });
      return res.end("missing");
  }
});

const worker = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    workerSeen.push(JSON.parse(body) as WorkerRequest);
    res.writeHead(200, { "content-type": req.url === "/html" ? "text/html" : "image/png" });
    res.end(req.url === "/html" ? "<p>hi</p>" : PNG);
  });
});

const listen = (server: http.Server, port: number, host: string) =>
  new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, host, () => resolve()));
const close = (server: http.Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** The guard with 127.0.0.3 taken for a public address: everything else internal is still refused. */
const refusedInTests = (ip: string) => ip !== PUBLIC_IP && isInternalAddress(ip);
const agents: Agent[] = [];
const testAgent = (autoSelectFamily?: boolean) => {
  const agent = new Agent({
    connect: publicOnlyConnector(
      (autoSelectFamily === undefined ? {} : { autoSelectFamily }) as buildConnector.BuildOptions,
      refusedInTests,
    ),
  });
  agents.push(agent);
  return agent;
};

/** Made-up names and what the (spied) resolver answers for them, call after call. */
const fakeDns = new Map<string, (call: number) => dns.LookupAddress[]>();
const lookupCalls = new Map<string, number>();
type Lookup = (
  host: string,
  options: dns.LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void,
) => void;
const realLookup = dns.lookup as unknown as Lookup;

beforeAll(async () => {
  await listen(servers[0]!, PORT, "127.0.0.1");
  await listen(servers[1]!, PORT, "::1");
  await listen(publicServer, PORT, PUBLIC_IP);
  await listen(worker, WORKER_PORT, "127.0.0.1");
  const fake: Lookup = (host, options, callback) => {
    const answer = fakeDns.get(host);
    if (!answer) return realLookup.call(dns, host, options, callback);
    const call = (lookupCalls.get(host) ?? 0) + 1;
    lookupCalls.set(host, call);
    const addresses = answer(call);
    process.nextTick(() => (options.all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family)));
  };
  vi.spyOn(dns, "lookup").mockImplementation(fake as unknown as typeof dns.lookup);
});
afterAll(async () => {
  vi.restoreAllMocks();
  await Promise.all(agents.map((a) => a.close()));
  await Promise.all([...servers, publicServer, worker].map(close));
});
afterEach(async () => {
  const hits = internalHits.splice(0);
  publicHits.length = 0;
  workerSeen.length = 0;
  fakeDns.clear();
  lookupCalls.clear();
  await updateOption("WorkerUrl", "");
  await updateOption("WorkerValidKey", "");
  // No case, whatever it tried, may have reached the internal server.
  expect(hits).toEqual([]);
});

/** The error a fetch ends with (it must end with one). */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("fetched");
    },
    (e: unknown) => e,
  );

const refusedAsInternal = (error: unknown, label: string) => {
  expect(error, label).toBeInstanceOf(UserUrlError);
  expect((error as Error).message, label).toBe(FETCH_URL_MSG.internalAddress);
  expect((error as Error).cause, label).toBeInstanceOf(InternalAddressError);
};

describe("every spelling of an internal host is refused before a byte is sent", () => {
  const P = `:${PORT}`;
  // Each of these would reach the loopback server (or a cloud metadata or LAN host) unguarded.
  const internal = [
    `http://127.0.0.1${P}/secret`,
    `https://127.0.0.1${P}/secret`,
    `http://127.1${P}/short`,
    `http://2130706433${P}/decimal`,
    `http://0x7f000001${P}/hex`,
    `http://0x7f.0.0.1${P}/hex-dotted`,
    `http://0x7f.1${P}/hex-short`,
    `http://0177.0.0.1${P}/octal`,
    `http://0177.0.0.01${P}/octal-2`,
    `http://127.0.0.1.${P}/trailing-dot`,
    `http://127.0.0.1%2e${P}/encoded-dot`,
    `http://１２７.０.０.１${P}/fullwidth`,
    `http://127.99.3.4${P}/loopback-range`,
    `http://0.0.0.0${P}/unspecified`,
    `http://0${P}/zero`,
    `http://[::]${P}/v6-unspecified`,
    `http://[::1]${P}/v6-loopback`,
    `http://[0:0:0:0:0:0:0:1]${P}/v6-long`,
    `http://[::ffff:127.0.0.1]${P}/mapped`,
    `http://[::ffff:7f00:1]${P}/mapped-hex`,
    `http://[0:0:0:0:0:ffff:127.0.0.1]${P}/mapped-long`,
    `http://[::127.0.0.1]${P}/compatible`,
    `http://[64:ff9b::127.0.0.1]${P}/nat64`,
    `http://[2002:7f00:1::]${P}/6to4`,
    `http://localhost${P}/name`,
    `http://LocalHost${P}/name-case`,
    `http://public@127.0.0.1${P}/userinfo`,
    `http://public.example.com:443@127.0.0.1${P}/userinfo-port`,
    `http://user:pass@[::1]${P}/userinfo-v6`,
    `http://127.0.0.1${P}#@public.example.com/fragment`,
    "http://169.254.169.254/latest/meta-data/",
    "http://[::ffff:169.254.169.254]/latest/meta-data/",
    "http://100.100.100.200/latest/meta-data/",
    "http://10.0.0.1/",
    "http://172.16.0.1/",
    "http://192.168.1.1/",
    "http://100.64.0.1/",
    "http://[fd00:ec2::254]/",
    "http://[fe80::1]/",
    "http://224.0.0.1/",
    "http://240.0.0.1/",
    "http://255.255.255.255/",
    "http://[ff02::1]/",
  ];

  it("by fetchUserUrl, each one", async () => {
    for (const url of internal) refusedAsInternal(await failure(fetchUserUrl(url, { timeoutMs: 5_000 })), url);
  });

  it("by fetchUserImage, with the image path's message", async () => {
    for (const url of [`http://127.0.0.1:${PORT}/a.png`, `http://2130706433:${PORT}/a.png`, `http://[::ffff:127.0.0.1]:${PORT}/a.png`]) {
      const error = await failure(fetchUserImage(url));
      expect(error, url).toBeInstanceOf(UserUrlError);
      expect((error as Error).message, url).toBe(`${FETCH_URL_MSG.fetchFailed}：${FETCH_URL_MSG.internalAddress}`);
    }
  });

  it("and parser tricks that name another host never land on the internal one", async () => {
    // `\` is `/` in http URLs, so the host is public.example (not resolvable offline); a name with
    // a trailing dot may or may not resolve, and is refused when it does.
    for (const url of [`http://public.example\\@127.0.0.1:${PORT}/`, `http://localhost.:${PORT}/`]) {
      const error = await failure(fetchUserUrl(url, { timeoutMs: 5_000 }));
      expect(error, url).toBeInstanceOf(UserUrlError);
      expect([FETCH_URL_MSG.internalAddress, FETCH_URL_MSG.unreachable], url).toContain((error as Error).message);
    }
  });

  it("refuses every scheme but http and https", async () => {
    for (const url of [
      "file:///etc/passwd",
      "gopher://127.0.0.1:5550/_",
      "ftp://example.com/",
      "dict://127.0.0.1:5550/",
      "javascript:alert(1)",
      "//127.0.0.1/",
    ]) {
      expect(await failure(fetchUserUrl(url)), url).toEqual(new UserUrlError(FETCH_URL_MSG.badUrl));
    }
  });

  it("never says what a name resolved to", async () => {
    const error = (await failure(fetchUserUrl(`http://localhost:${PORT}/`))) as Error;
    expect(error.message).not.toMatch(/127\.0\.0\.1|::1/);
    // The detail stays on the cause, for logs.
    expect((error.cause as Error).message).toMatch(/^localhost 解析到/);
  });
});

describe("redirects: every hop is checked again", () => {
  const to = (target: string, status = 302) => `${PUBLIC}/to?status=${status}&url=${encodeURIComponent(target)}`;

  it("follows a redirect to a public host (the first hop is allowed)", async () => {
    const answer = await fetchUserUrlVia(testAgent(), to("/cat.png"));
    expect(answer).toMatchObject({ status: 200, contentType: "image/png", via: "direct" });
    expect(answer.body).toEqual(PNG);
    expect(publicHits).toEqual(["/to?status=302&url=%2Fcat.png", "/cat.png"]);
  });

  it("refuses a redirect from a public host to an internal one, in any spelling and with any status", async () => {
    const agent = testAgent();
    const targets = [
      `http://127.0.0.1:${PORT}/secret`,
      `http://localhost:${PORT}/secret`,
      `http://[::1]:${PORT}/secret`,
      `http://[::ffff:127.0.0.1]:${PORT}/secret`,
      `http://2130706433:${PORT}/secret`,
      `http://0x7f000001:${PORT}/secret`,
      `http://0.0.0.0:${PORT}/secret`,
      `http://public@127.0.0.1:${PORT}/secret`,
      "http://169.254.169.254/latest/meta-data/iam/",
    ];
    for (const target of targets) refusedAsInternal(await failure(fetchUserUrlVia(agent, to(target))), target);
    for (const status of [301, 303, 307, 308]) {
      refusedAsInternal(await failure(fetchUserUrlVia(agent, to(`http://127.0.0.1:${PORT}/secret`, status))), String(status));
    }
    // Each redirect was answered by the public server; nothing went further.
    expect(publicHits).toHaveLength(targets.length + 4);
  });

  it("refuses a redirect to another scheme, and a loop after 5 hops", async () => {
    const agent = testAgent();
    for (const target of ["file:///etc/passwd", "gopher://127.0.0.1:5550/_"]) {
      expect(await failure(fetchUserUrlVia(agent, to(target))), target).toEqual(new UserUrlError(FETCH_URL_MSG.badUrl));
    }
    expect(await failure(fetchUserUrlVia(agent, `${PUBLIC}/loop`))).toEqual(new UserUrlError(FETCH_URL_MSG.tooManyRedirects));
    expect(publicHits.filter((h) => h === "/loop")).toHaveLength(6);
  });
});

describe("DNS: one answer, checked whole, is the one connected to", () => {
  it("connects to the address it checked, however the name answers the next time (rebinding)", async () => {
    fakeDns.set("rebind.ssrf.test", (call) => [{ address: call === 1 ? PUBLIC_IP : "127.0.0.1", family: 4 }]);
    const answer = await fetchUserUrlVia(testAgent(), `http://rebind.ssrf.test:${PORT}/cat.png`);
    expect(answer.body).toEqual(PNG);
    expect(publicHits).toEqual(["/cat.png"]);
    // One lookup served both the check and the connection.
    expect(lookupCalls.get("rebind.ssrf.test")).toBe(1);
    // A new connection looks the name up again, and is checked again.
    refusedAsInternal(await failure(fetchUserUrlVia(testAgent(), `http://rebind.ssrf.test:${PORT}/cat.png`)), "second answer");
    expect(lookupCalls.get("rebind.ssrf.test")).toBe(2);
  });

  it("refuses a name with any internal address among several, with and without happy eyeballs", async () => {
    fakeDns.set("multi-a.ssrf.test", () => [
      { address: PUBLIC_IP, family: 4 },
      { address: "127.0.0.1", family: 4 },
    ]);
    fakeDns.set("multi-b.ssrf.test", () => [
      { address: "127.0.0.1", family: 4 },
      { address: PUBLIC_IP, family: 4 },
    ]);
    fakeDns.set("mixed.ssrf.test", () => [
      { address: "::1", family: 6 },
      { address: PUBLIC_IP, family: 4 },
    ]);
    fakeDns.set("metadata.ssrf.test", () => [{ address: "169.254.169.254", family: 4 }]);
    fakeDns.set("mapped.ssrf.test", () => [{ address: "::ffff:127.0.0.1", family: 6 }]);
    fakeDns.set("zero.ssrf.test", () => [{ address: "0.0.0.0", family: 4 }]);
    for (const autoSelectFamily of [undefined, true, false]) {
      const agent = testAgent(autoSelectFamily);
      for (const name of ["multi-a", "multi-b", "mixed", "metadata", "mapped", "zero"]) {
        refusedAsInternal(await failure(fetchUserUrlVia(agent, `http://${name}.ssrf.test:${PORT}/cat.png`)), `${name} ${autoSelectFamily}`);
      }
      // The same agent reaches a name whose every address is allowed.
      fakeDns.set("ok.ssrf.test", () => [{ address: PUBLIC_IP, family: 4 }]);
      expect((await fetchUserUrlVia(agent, `http://ok.ssrf.test:${PORT}/cat.png`)).body).toEqual(PNG);
    }
    expect(publicHits).toEqual(["/cat.png", "/cat.png", "/cat.png"]);
  });
});

describe("size and time are capped", () => {
  it("stops at the cap, declared or not", async () => {
    const agent = testAgent();
    for (const path of ["/big-declared", "/big-chunked"]) {
      expect(await failure(fetchUserUrlVia(agent, `${PUBLIC}${path}`, { maxBytes: 1024 })), path).toEqual(
        new UserUrlError(FETCH_URL_MSG.tooLarge),
      );
      expect(((await failure(fetchUserImageVia(agent, `${PUBLIC}${path}`, { maxBytes: 1024 }))) as Error).message, path).toBe(
        `${FETCH_URL_MSG.fetchFailed}：${FETCH_URL_MSG.tooLarge}`,
      );
    }
  });

  it("cuts off a body that trickles for ever, and closes its connection", async () => {
    const started = Date.now();
    const error = await failure(fetchUserImageVia(testAgent(), `${PUBLIC}/slow-body`, { timeoutMs: 800 }));
    expect((error as Error).message).toBe(`${FETCH_URL_MSG.fetchFailed}：${FETCH_URL_MSG.timeout}`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
    await slowClosed;
  });

  it("cuts off an answer whose headers never come", async () => {
    const error = await failure(fetchUserUrlVia(testAgent(), `${PUBLIC}/slow-headers`, { timeoutMs: 500 }));
    expect(error).toEqual(new UserUrlError(FETCH_URL_MSG.timeout));
    await slowClosed;
  });
});

describe("fetchUserImage", () => {
  it("returns an image's bytes and type", async () => {
    expect(await fetchUserImageVia(testAgent(), `${PUBLIC}/cat.png`)).toEqual({ mediaType: "image/png", base64: PNG.toString("base64") });
  });

  it("refuses what is not an image, and an error status", async () => {
    const agent = testAgent();
    expect(await failure(fetchUserImageVia(agent, `${PUBLIC}/page`))).toEqual(new UserUrlError(FETCH_URL_MSG.notImage));
    expect(await failure(fetchUserImageVia(agent, `${PUBLIC}/missing`))).toEqual(
      new UserUrlError(`${FETCH_URL_MSG.fetchFailed}（状态码 404）`),
    );
  });

  it("decodes data: URLs without any fetch", async () => {
    const b64 = PNG.toString("base64");
    expect(await fetchUserImage(`data:image/png;base64,${b64}`)).toEqual({ mediaType: "image/png", base64: b64 });
    // Case, parameters, whitespace and missing padding as browsers take them; canonical base64 out.
    const wrapped = `${b64.slice(0, 20)}\n ${b64.slice(20).replace(/=+$/, "")}`;
    expect(await fetchUserImage(`DATA:Image/PNG;name=a.png;BASE64,${wrapped}`)).toEqual({ mediaType: "image/png", base64: b64 });
    expect(publicHits).toEqual([]);
  });

  it("refuses data: URLs that are not images or not base64", async () => {
    expect(await failure(fetchUserImage("data:text/plain;base64,aGVsbG8="))).toEqual(new UserUrlError(FETCH_URL_MSG.notImage));
    expect(await failure(fetchUserImage("data:;base64,aGVsbG8="))).toEqual(new UserUrlError(FETCH_URL_MSG.notImage));
    for (const url of [
      "data:image/png;base64,@@@not-base64@@@",
      "data:image/png;base64,aGVsbG8=x",
      "data:image/png;base64,a===",
      "data:image/png;base64,abcde",
      "data:image/png;base64,",
      "data:image/png,%89PNG",
      "data:image/png;base64",
    ]) {
      expect(await failure(fetchUserImage(url)), url).toEqual(new UserUrlError(FETCH_URL_MSG.badDataUrl));
    }
    expect(await failure(fetchUserImage(`data:image/png;base64,${Buffer.alloc(3000).toString("base64")}`, { maxBytes: 1024 }))).toEqual(
      new UserUrlError(FETCH_URL_MSG.tooLarge),
    );
  });
});

describe("with root's worker proxy set", () => {
  it("hands the fetch to the worker, {url, key, method, headers, body}, and never connects to the user's host", async () => {
    await updateOption("WorkerUrl", `http://127.0.0.1:${WORKER_PORT}`);
    await updateOption("WorkerValidKey", "worker-pass-2");
    expect(await fetchUserImage(`http://127.0.0.1:${PORT}/cat.png`)).toEqual({ mediaType: "image/png", base64: PNG.toString("base64") });
    await fetchUserUrl(`http://[::1]:${PORT}/hook`, { method: "POST", headers: { "x-sig": "1" }, body: "{}" });
    expect(workerSeen).toEqual([
      { url: `http://127.0.0.1:${PORT}/cat.png`, key: "worker-pass-2", method: "GET" },
      { url: `http://[::1]:${PORT}/hook`, key: "worker-pass-2", method: "POST", headers: { "x-sig": "1" }, body: "{}" },
    ]);
  });

  it("checks the worker's answer like any other: not an image, not an http URL", async () => {
    await updateOption("WorkerUrl", `http://127.0.0.1:${WORKER_PORT}/html`);
    expect(await failure(fetchUserImage("https://images.example.com/a.png"))).toEqual(new UserUrlError(FETCH_URL_MSG.notImage));
    expect((await failure(fetchUserImage("file:///etc/passwd"))) as Error).toBeInstanceOf(UserUrlError);
    expect(workerSeen).toHaveLength(1);
  });
});
