// Connections that may reach only public addresses (see isInternalAddress). A host name is
// resolved once, every address it resolves to is checked, and the socket connects to an address
// from that same answer: no second resolution can swap in another address between the check and
// the connect (DNS rebinding). How: undici's connector hands the host to net.connect /
// tls.connect with our `lookup`; net calls it exactly once per connection — with `all: true`
// under happy eyeballs (autoSelectFamily, Node's default), then tries the answer's addresses in
// turn, or without it and connects to the one address returned — and skips it only for an IP
// literal, which the connector checks itself. A name with any internal address among its answers
// is refused as a whole, so no address of a multi-address answer is ever tried unchecked. The
// check runs when a connection is opened, not per request; a pooled connection stays on its
// checked address.
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

/** Which addresses a connection may not reach: isInternalAddress, or a test's own rule. */
export type RefusedAddress = (address: string) => boolean;

/** The first refused address of a lookup's answer: one is enough to refuse the name. */
const firstRefused = (addresses: dns.LookupAddress[], refused: RefusedAddress = isInternalAddress) =>
  addresses.find((a) => refused(a.address))?.address ?? null;

/**
 * dns.lookup for net.connect that fails with InternalAddressError when the name resolves to any
 * refused address (a name with one public and one internal address is refused as a whole).
 */
export const lookupRefusing =
  (refused: RefusedAddress): LookupFunction =>
  (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const internal = firstRefused(addresses, refused);
      if (internal) return callback(new InternalAddressError(hostname, internal), "", 0);
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "", 0);
      callback(null, first.address, first.family);
    });
  };

/** dns.lookup for net.connect that refuses internal addresses (see lookupRefusing). */
export const publicOnlyLookup: LookupFunction = lookupRefusing(isInternalAddress);

/**
 * An undici connector that refuses internal addresses, literal or resolved. `refused` is for
 * tests (a loopback server standing for a public host); production always uses the default.
 */
export function publicOnlyConnector(
  options: buildConnector.BuildOptions,
  refused: RefusedAddress = isInternalAddress,
): buildConnector.connector {
  const connect = buildConnector({ ...options, lookup: lookupRefusing(refused) });
  return (target, callback) => {
    // net.connect skips the lookup for an IP literal, so a literal is checked here (undici has
    // already taken the brackets off an IPv6 one).
    if (isIP(target.hostname) && refused(target.hostname)) {
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
  const lookup = dns.promises.lookup(bare, { all: true }).then(
    (answer) => firstRefused(answer),
    () => null,
  );
  try {
    return await Promise.race([lookup, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
