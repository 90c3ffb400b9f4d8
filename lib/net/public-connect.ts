// Connections that may reach only public addresses (see isInternalAddress). A host name is
// resolved once, every address it resolves to is checked, and the socket connects to an address
// from that same answer: no second resolution can swap in another address between the check and
// the connect (DNS rebinding). The check runs when a connection is opened, not per request.
import dns from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { buildConnector } from "undici";
import { INTERNAL_ADDRESS_CODE, isInternalAddress } from "@/lib/net/ip";

export class InternalAddressError extends Error {
  readonly code = INTERNAL_ADDRESS_CODE;
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(host === address ? `${address} 是本机、内网或链路本地地址` : `${host} 解析到本机、内网或链路本地地址 ${address}`);
    this.name = "InternalAddressError";
  }
}

/** The first internal address of a lookup's answer: one is enough to refuse the name. */
const firstInternal = (addresses: dns.LookupAddress[]) => addresses.find((a) => isInternalAddress(a.address))?.address ?? null;

/**
 * dns.lookup for net.connect that fails with InternalAddressError when the name resolves to any
 * internal address (a name with one public and one internal address is refused as a whole).
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "", 0);
    const internal = firstInternal(addresses);
    if (internal) return callback(new InternalAddressError(hostname, internal), "", 0);
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "", 0);
    callback(null, first.address, first.family);
  });
};

/** An undici connector that refuses internal addresses, literal or resolved. */
export function publicOnlyConnector(options: buildConnector.BuildOptions): buildConnector.connector {
  const connect = buildConnector({ ...options, lookup: publicOnlyLookup });
  return (target, callback) => {
    // net.connect skips the lookup for an IP literal, so a literal is checked here.
    if (isIP(target.hostname) && isInternalAddress(target.hostname)) {
      callback(new InternalAddressError(target.hostname, target.hostname), null);
      return;
    }
    connect(target, callback);
  };
}

/** How long a save waits for DNS before leaving the check to connect time. */
const SAVE_LOOKUP_TIMEOUT_MS = 5_000;

/**
 * The first internal address `host` is or resolves to, or null. A name that does not resolve
 * (offline, not yet in DNS) gives null: connections are checked again when they are opened.
 */
export async function internalAddressOf(host: string): Promise<string | null> {
  const bare = host.replace(/^\[|\]$/g, "");
  if (isIP(bare)) return isInternalAddress(bare) ? bare : null;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), SAVE_LOOKUP_TIMEOUT_MS);
  });
  const lookup = dns.promises.lookup(bare, { all: true }).then(firstInternal, () => null);
  try {
    return await Promise.race([lookup, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
