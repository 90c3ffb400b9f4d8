// Relay workers hand every non-relay path to the console process (Next) over a Unix socket.
// Bodies stream both ways; the client address travels in CLIENT_IP_HEADER with the per-boot
// proof the console checks (lib/net/client-ip.ts), both always overwritten here so a client
// cannot choose its address.
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { clientIpHeaders } from "@/lib/net/client-ip";
import { componentLogger } from "@/lib/log";

const log = componentLogger("server");

/** Headers that describe one hop, not the message (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade"]);

/**
 * Next's router marks every link prefetch with this header, and drops a prefetch answer that is
 * not a 2xx Flight answer without reading or cancelling its body. Chromium keeps such an unread
 * `no-store` answer pending for as long as the page lives, so a page that links to a missing page
 * (the login page to /reset) never reaches network idle. Those answers go out with their status
 * and headers and no body: nobody would read it.
 */
const PREFETCH_HEADER = "next-router-prefetch";
const FLIGHT_CONTENT_TYPE = "text/x-component";
/** Headers that describe a body; dropped with it. */
const BODY_HEADERS = new Set(["content-length", "content-encoding", "transfer-encoding"]);

function isFlightAnswer(status: number, contentType: string | undefined): boolean {
  return status >= 200 && status < 300 && contentType?.startsWith(FLIGHT_CONTENT_TYPE) === true;
}

export class ConsoleProxy {
  private socketPath: string | null = null;
  private waiting: Array<() => void> = [];
  private readonly agent = new http.Agent({ keepAlive: true, maxFreeSockets: 64 });

  /** `waitMs`: how long a request waits for a console that is (re)starting before a 503. */
  constructor(private readonly waitMs = 120_000) {}

  /** Called when the console process is ready (again, after a restart). */
  setTarget(socketPath: string) {
    this.socketPath = socketPath;
    for (const wake of this.waiting.splice(0)) wake();
  }

  /** The console process went away; requests wait for setTarget() again. */
  clearTarget() {
    this.socketPath = null;
  }

  /** The console is starting (or restarting): hold requests until it answers, up to `ms`. */
  private ready(ms: number): Promise<boolean> {
    if (this.socketPath) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = this.waiting.filter((w) => w !== wake);
        resolve(false);
      }, ms);
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.waiting.push(wake);
    });
  }

  async forward(req: IncomingMessage, res: ServerResponse, clientIp: string): Promise<void> {
    if (!(await this.ready(this.waitMs))) return unavailable(res);
    // The client left while the console was starting: a request opened now would never be sent
    // (its body never ends) and would hold a console socket until the console timed it out.
    if (res.destroyed) return;
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    Object.assign(headers, clientIpHeaders(clientIp));
    const upstream = http.request({ socketPath: this.socketPath!, method: req.method, path: req.url, headers, agent: this.agent });
    upstream.on("response", (answer) => {
      const status = answer.statusCode ?? 502;
      const bodyless = req.headers[PREFETCH_HEADER] !== undefined && !isFlightAnswer(status, answer.headers["content-type"]);
      const raw = answer.rawHeaders;
      const out: string[] = [];
      for (let i = 0; i < raw.length; i += 2) {
        const name = raw[i]!.toLowerCase();
        if (!HOP_BY_HOP.has(name) && !(bodyless && BODY_HEADERS.has(name))) out.push(raw[i]!, raw[i + 1]!);
      }
      if (bodyless) {
        res.writeHead(status, answer.statusMessage, [...out, "content-length", "0"]);
        res.end();
        answer.resume(); // read and drop it, so the console socket goes back to the pool
        return;
      }
      res.writeHead(status, answer.statusMessage, out);
      answer.pipe(res);
      answer.on("error", () => res.destroy());
      // The console answered before reading the whole body (a 413 on a body over the cap).
      // Node's client never resumes a request whose answer has ended, so the rest of the body
      // would stall here and the client's connection with it: drop the rest and that request.
      answer.on("end", () => {
        if (req.complete) return;
        cut = true;
        req.unpipe(upstream);
        req.resume();
        upstream.destroy();
      });
    });
    let clientGone = false;
    let cut = false;
    upstream.on("error", (error) => {
      if (clientGone || cut) return; // we cut it: the browser left (navigation, reload), or the console already answered
      // The console went away mid-request (restart): the client gets a clean 502 if we can.
      log.error({ err: error, path: req.url?.split("?", 1)[0] }, "console request failed");
      if (!res.headersSent) unavailable(res, 502);
      else res.destroy();
    });
    res.on("close", () => {
      if (res.writableFinished) return;
      clientGone = true;
      upstream.destroy();
    });
    req.pipe(upstream);
  }
}

function unavailable(res: ServerResponse, status = 503) {
  const body = JSON.stringify({ success: false, message: "控制台正在启动，请稍后再试" });
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "retry-after": "2",
  });
  res.end(body);
}
