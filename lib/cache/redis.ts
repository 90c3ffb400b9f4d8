// A minimal Redis client (RESP2 over one TCP or TLS connection, commands pipelined in order) for
// the shared cache: the few commands lib/cache/shared.ts sends, no dependency. A broken
// connection fails the commands in flight and is reopened by the next command.
import net from "node:net";
import tls from "node:tls";

export type RedisReply = string | number | null | RedisReply[];

export class RedisError extends Error {}

type Pending = { resolve: (value: RedisReply) => void; reject: (error: Error) => void };

const CONNECT_TIMEOUT_MS = 3000;

/** Encodes one command as a RESP array of bulk strings. */
export function encodeCommand(args: (string | number)[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const bytes = Buffer.from(String(arg));
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from("\r\n"));
  }
  return Buffer.concat(parts);
}

/**
 * Parses one reply at `offset`: [value, next offset], or null when the buffer does not hold all of
 * it yet. An error reply is returned as a RedisError value.
 */
export function parseReply(buf: Buffer, offset: number): [RedisReply | RedisError, number] | null {
  const end = buf.indexOf("\r\n", offset);
  if (end < 0) return null;
  const type = String.fromCharCode(buf[offset]!);
  const line = buf.toString("utf8", offset + 1, end);
  const next = end + 2;
  switch (type) {
    case "+":
      return [line, next];
    case "-":
      return [new RedisError(line), next];
    case ":":
      return [Number(line), next];
    case "$": {
      const len = Number(line);
      if (len < 0) return [null, next];
      if (buf.length < next + len + 2) return null;
      return [buf.toString("utf8", next, next + len), next + len + 2];
    }
    case "*": {
      const count = Number(line);
      if (count < 0) return [null, next];
      const items: RedisReply[] = [];
      let at = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buf, at);
        if (!item) return null;
        if (item[0] instanceof RedisError) return [item[0], item[1]];
        items.push(item[0]);
        at = item[1];
      }
      return [items, at];
    }
    default:
      throw new RedisError(`unexpected reply type ${JSON.stringify(type)}`);
  }
}

export class RedisClient {
  private socket: net.Socket | null = null;
  private ready: Promise<void> | null = null;
  private pending: Pending[] = [];
  private buffer: Buffer = Buffer.alloc(0);
  private readonly url: URL;

  constructor(connString: string) {
    this.url = new URL(connString);
    if (this.url.protocol !== "redis:" && this.url.protocol !== "rediss:")
      throw new Error("REDIS_CONN_STRING must be a redis:// or rediss:// URL");
  }

  async command(...args: (string | number)[]): Promise<RedisReply> {
    await this.connect();
    return this.send(args);
  }

  close() {
    this.socket?.destroy();
    this.socket = null;
    this.ready = null;
  }

  private send(args: (string | number)[]): Promise<RedisReply> {
    const socket = this.socket;
    if (!socket) return Promise.reject(new RedisError("redis connection closed"));
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      socket.write(encodeCommand(args));
    });
  }

  private connect(): Promise<void> {
    if (this.ready) return this.ready;
    const host = this.url.hostname.replace(/^\[|\]$/g, "") || "127.0.0.1";
    const port = Number(this.url.port || 6379);
    const socket =
      this.url.protocol === "rediss:"
        ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host })
        : net.connect({ host, port });
    socket.setNoDelay(true);
    // The cache must never keep a process alive.
    socket.unref();
    this.socket = socket;
    this.buffer = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    const fail = (error: Error) => {
      if (this.socket === socket) {
        this.socket = null;
        this.ready = null;
      }
      const waiting = this.pending;
      this.pending = [];
      for (const p of waiting) p.reject(error);
    };
    socket.on("error", fail);
    socket.on("close", () => fail(new RedisError("redis connection closed")));
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new RedisError("redis connection timed out"));
      }, CONNECT_TIMEOUT_MS);
      timer.unref();
      socket.once(this.url.protocol === "rediss:" ? "secureConnect" : "connect", () => {
        clearTimeout(timer);
        resolve();
      });
      socket.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
    }).then(async () => {
      const user = decodeURIComponent(this.url.username);
      const password = decodeURIComponent(this.url.password);
      if (password) await this.send(user ? ["AUTH", user, password] : ["AUTH", password]);
      const db = Number(this.url.pathname.slice(1) || 0);
      if (db) await this.send(["SELECT", db]);
    });
    this.ready.catch(() => {
      if (this.socket === socket) this.close();
    });
    return this.ready;
  }

  private onData(chunk: Buffer) {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    let offset = 0;
    for (;;) {
      const parsed = parseReply(this.buffer, offset);
      if (!parsed) break;
      offset = parsed[1];
      const waiter = this.pending.shift();
      if (!waiter) continue;
      if (parsed[0] instanceof RedisError) waiter.reject(parsed[0]);
      else waiter.resolve(parsed[0]);
    }
    this.buffer = this.buffer.subarray(offset);
  }
}
