// Relay workers hand every non-relay path to the console process (Next) over a Unix socket.
// Bodies stream both ways; the client address travels in CLIENT_IP_HEADER, which is always
// overwritten here so a client cannot choose it.
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { CLIENT_IP_HEADER } from "@/lib/net/client-ip";

/** Headers that describe one hop, not the message (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade"]);

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
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    headers[CLIENT_IP_HEADER] = clientIp;
    const upstream = http.request({ socketPath: this.socketPath!, method: req.method, path: req.url, headers, agent: this.agent });
    upstream.on("response", (answer) => {
      const raw = answer.rawHeaders;
      const out: string[] = [];
      for (let i = 0; i < raw.length; i += 2) if (!HOP_BY_HOP.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
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
      console.error("[server] console request failed:", error.message);
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
