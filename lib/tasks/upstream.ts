// HTTP to a task vendor: through the relay's connection pools and address rules (agentForChannel:
// an address an admin below root set reaches no internal host unless allowed), with a timeout and
// a cap on what is read. Answers come back whole (JSON, small) or as a stream handed to the
// client (a video's content) without being held in memory.
import type { Readable } from "node:stream";
import { request } from "undici";
import { channelBaseUrl } from "@/lib/channels/fields";
import type { RoutingChannel } from "@/lib/channels/routing";
import type { OptionValues } from "@/lib/options";
import { describeUpstreamNetworkError } from "@/lib/relay/errors";
import type { RelayStreamBody } from "@/lib/relay/http";
import { agentForChannel } from "@/lib/relay/memory/runtime";

/** The channel's base URL (its type's default when empty), without trailing slashes. */
export function vendorBase(channel: Pick<RoutingChannel, "type" | "base_url">): string {
  return channelBaseUrl(channel.type, channel.base_url);
}

export type VendorRequest = {
  method: "GET" | "POST" | "DELETE";
  url: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON. */
  body?: string | Uint8Array | Record<string, unknown> | unknown[];
  /** Default 60 s (new-api's submit timeout); polls use 15 s. */
  timeoutMs?: number;
  /** Default 16 MiB. */
  maxBytes?: number;
};

export type VendorAnswer = {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
};

/** The vendor could not be reached or answered too much; `message` is safe to show. */
export class VendorUnreachable extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = "VendorUnreachable";
  }
}

function init(channel: RoutingChannel, options: OptionValues, r: VendorRequest) {
  const headers: Record<string, string> = { accept: "application/json", ...r.headers };
  let body: string | Uint8Array | undefined;
  if (r.body === undefined) body = undefined;
  else if (typeof r.body === "string" || r.body instanceof Uint8Array) body = r.body;
  else {
    body = JSON.stringify(r.body);
    headers["content-type"] ??= "application/json";
  }
  return {
    method: r.method,
    headers,
    body,
    dispatcher: agentForChannel(channel, options as { ChannelPrivateAddressAllowed: boolean }),
    signal: AbortSignal.timeout(r.timeoutMs ?? 60_000),
  };
}

function unreachable(error: unknown): VendorUnreachable {
  if (error instanceof VendorUnreachable) return error;
  const { message, code } = describeUpstreamNetworkError(error);
  return new VendorUnreachable(message, code);
}

/** One request, its whole answer read (at most maxBytes). Throws VendorUnreachable. */
export async function callVendor(channel: RoutingChannel, options: OptionValues, r: VendorRequest): Promise<VendorAnswer> {
  const limit = r.maxBytes ?? 16 * 1024 * 1024;
  try {
    const res = await request(r.url, init(channel, options, r));
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += chunk.byteLength;
      if (size > limit) {
        res.body.destroy();
        throw new VendorUnreachable(`上游响应超过 ${limit} 字节`, "upstream_too_large");
      }
      chunks.push(Buffer.from(chunk));
    }
    const text = Buffer.concat(chunks).toString("utf8");
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, headers: res.headers, text, json };
  } catch (error) {
    throw unreachable(error);
  }
}

export type VendorStream = {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
};

/** One request whose answer is streamed (the caller reads or destroys `body`). Throws VendorUnreachable. */
export async function openVendorStream(channel: RoutingChannel, options: OptionValues, r: VendorRequest): Promise<VendorStream> {
  try {
    // No overall timeout for a download: a long video takes as long as it takes. The connection's
    // own idle timeouts (the pool's) still end a vendor that stops sending.
    const { signal: _signal, ...rest } = init(channel, options, { ...r, timeoutMs: r.timeoutMs ?? 60_000 });
    const res = await request(r.url, rest);
    return { status: res.statusCode, headers: res.headers, body: res.body };
  } catch (error) {
    throw unreachable(error);
  }
}

/** A Node stream as a relay response body, with backpressure, ended or cancelled once. */
export function relayStreamOf(body: Readable): RelayStreamBody {
  return {
    start(sink) {
      body.on("data", (chunk: Buffer) => {
        if (!sink.write(chunk)) {
          body.pause();
          sink.onDrain(() => body.resume());
        }
      });
      body.once("end", () => sink.end());
      body.once("error", () => sink.end());
    },
    cancel() {
      body.destroy();
    },
  };
}
