// A loopback stand-in for Spark's WebSocket chat API: checks the signed URL (host, date, the
// HMAC-SHA256 signature over "host/date/request-line" with the APISecret) the way iFlytek does,
// answers a bad one with 401 and a JSON body, and else replays frames for the request frame.
// Minimal RFC 6455 on node:http's upgrade: the handshake, masked client text frames in, unmasked
// server text frames out.
import { createHash, createHmac } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";

export interface SparkMockOptions {
  appId: string;
  apiKey: string;
  apiSecret: string;
}

export interface SparkRequest {
  path: string;
  query: Record<string, string>;
  frame: Record<string, any>;
}

export interface SparkMock {
  url: string;
  requests: SparkRequest[];
  /** The frames to answer with, in order (objects sent as JSON, strings as they are); set per test. */
  frames: unknown[];
  /** Wait this long between frames (ms). */
  gapMs: number;
  /** Sockets that closed (the client's close frame or its end). */
  closed: number;
  /** Handshakes refused. */
  refused: number;
  reset(): void;
  close(): Promise<void>;
}

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

function refuse(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ message });
  socket.end(
    `HTTP/1.1 ${status} ${status === 401 ? "Unauthorized" : "Forbidden"}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** Why the URL's signature fails, or null when it is good. */
function checkSignature(req: IncomingMessage, o: SparkMockOptions): { status: number; message: string } | null {
  const url = new URL(req.url!, "http://mock");
  const host = url.searchParams.get("host");
  const date = url.searchParams.get("date");
  const authorization = url.searchParams.get("authorization");
  if (!host || !date || !authorization) return { status: 401, message: "Unauthorized" };
  if (host !== req.headers.host) return { status: 401, message: "HMAC signature does not match" };
  const at = Date.parse(date);
  if (!Number.isFinite(at) || Math.abs(Date.now() - at) > 300_000) {
    return { status: 403, message: "HMAC signature cannot be verified, a valid date or x-date header is required for HMAC Authentication" };
  }
  const decoded = Buffer.from(authorization, "base64").toString("utf8");
  const m = /^api_key="([^"]*)", algorithm="hmac-sha256", headers="host date request-line", signature="([^"]*)"$/.exec(decoded);
  if (!m || m[1] !== o.apiKey) return { status: 401, message: "HMAC signature does not match" };
  const expected = createHmac("sha256", o.apiSecret).update(`host: ${host}\ndate: ${date}\nGET ${url.pathname} HTTP/1.1`).digest("base64");
  return m[2] === expected ? null : { status: 401, message: "HMAC signature does not match" };
}

function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0x81, n]) : n < 65536 ? Buffer.from([0x81, 126, n >> 8, n & 255]) : Buffer.alloc(10);
  if (n >= 65536) {
    head[0] = 0x81;
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(n), 2);
  }
  return Buffer.concat([head, payload]);
}

/** Reads whole client frames off `buf`: [opcode, payload] each, and the bytes left over. */
function readFrames(buf: Buffer): { frames: [number, Buffer][]; rest: Buffer } {
  const frames: [number, Buffer][] = [];
  let p = 0;
  while (buf.length - p >= 2) {
    const opcode = buf[p]! & 0x0f;
    const masked = (buf[p + 1]! & 0x80) !== 0;
    let len = buf[p + 1]! & 0x7f;
    let q = p + 2;
    if (len === 126) {
      if (buf.length < q + 2) break;
      len = buf.readUInt16BE(q);
      q += 2;
    } else if (len === 127) {
      if (buf.length < q + 8) break;
      len = Number(buf.readBigUInt64BE(q));
      q += 8;
    }
    const maskAt = q;
    if (masked) q += 4;
    if (buf.length < q + len) break;
    const payload = Buffer.from(buf.subarray(q, q + len));
    if (masked) for (let i = 0; i < len; i++) payload[i]! ^= buf[maskAt + (i % 4)]!;
    frames.push([opcode, payload]);
    p = q + len;
  }
  return { frames, rest: Buffer.from(buf.subarray(p)) };
}

export async function startSparkMock(options: SparkMockOptions, port = 0): Promise<SparkMock> {
  const server = createServer((_req, res) => {
    res.writeHead(426).end();
  });
  const sockets = new Set<Duplex>();
  const mock: SparkMock = {
    url: "",
    requests: [],
    frames: [],
    gapMs: 0,
    closed: 0,
    refused: 0,
    reset() {
      mock.requests = [];
      mock.frames = [];
      mock.gapMs = 0;
      mock.closed = 0;
      mock.refused = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };

  server.on("upgrade", (req, socket: Duplex) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    const bad = checkSignature(req, options);
    if (bad) {
      mock.refused++;
      refuse(socket, bad.status, bad.message);
      return;
    }
    const accept = createHash("sha1").update(`${req.headers["sec-websocket-key"]}${GUID}`).digest("base64");
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${accept}\r\n\r\n`,
    );
    const url = new URL(req.url!, "http://mock");
    let buf: Buffer = Buffer.alloc(0);
    let counted = false;
    const countClose = () => {
      if (!counted) mock.closed++;
      counted = true;
    };
    socket.on("close", countClose);
    socket.on("data", (data: Buffer) => {
      const read = readFrames(Buffer.concat([buf, data]));
      buf = read.rest;
      for (const [opcode, payload] of read.frames) {
        if (opcode === 8) {
          countClose();
          socket.end(Buffer.from([0x88, 0]));
          return;
        }
        if (opcode !== 1) continue;
        mock.requests.push({
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          frame: JSON.parse(payload.toString("utf8")),
        });
        void replay(socket, mock.frames, mock.gapMs);
      }
    });
  });

  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  mock.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return mock;
}

async function replay(socket: Duplex, frames: readonly unknown[], gapMs: number): Promise<void> {
  for (const frame of frames) {
    if (socket.destroyed || socket.writableEnded) return;
    socket.write(textFrame(typeof frame === "string" ? frame : JSON.stringify(frame)));
    if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
  }
}
