// IP parsing and CIDR matching for token allow-lists and trusted proxies. IPv4, IPv6 and
// IPv4-mapped IPv6 (::ffff:1.2.3.4) are compared in one 128-bit space.
import { isIP } from "node:net";

function parseV4(ip: string): bigint | null {
  const parts = ip.split(".");
  if (parts.length !== 4) return null;
  let n = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null;
    const v = Number(p);
    if (v > 255) return null;
    n = (n << 8n) | BigInt(v);
  }
  return n;
}

/** The address as a 128-bit integer (IPv4 mapped into ::ffff:0:0/96), or null. */
export function ipToBigInt(raw: string): bigint | null {
  let ip = raw.trim();
  if (ip.startsWith("[") && ip.endsWith("]")) ip = ip.slice(1, -1);
  const zone = ip.indexOf("%");
  if (zone >= 0) ip = ip.slice(0, zone);
  const kind = isIP(ip);
  if (kind === 4) return (0xffffn << 32n) | parseV4(ip)!;
  if (kind !== 6) return null;
  let tail: bigint | null = null;
  const lastColon = ip.lastIndexOf(":");
  if (ip.slice(lastColon + 1).includes(".")) {
    tail = parseV4(ip.slice(lastColon + 1));
    ip = `${ip.slice(0, lastColon)}:0:0`;
  }
  const [head, rest] = ip.split("::") as [string, string | undefined];
  const h = head ? head.split(":") : [];
  const r = rest !== undefined && rest !== "" ? rest.split(":") : [];
  const groups = rest === undefined ? h : [...h, ...Array(8 - h.length - r.length).fill("0"), ...r];
  if (groups.length !== 8) return null;
  let n = 0n;
  for (const g of groups) n = (n << 16n) | BigInt(parseInt(g || "0", 16));
  if (tail !== null) n = (n & ~0xffffffffn) | tail;
  return n;
}

export type Cidr = { base: bigint; bits: number };

/** Parses "1.2.3.4", "10.0.0.0/8", "::1", "2001:db8::/32". Returns null when malformed. */
export function parseCidr(text: string): Cidr | null {
  const [addr, prefix] = text.trim().split("/") as [string, string | undefined];
  const base = ipToBigInt(addr);
  if (base === null) return null;
  const v4 = isIP(addr.replace(/^\[|\]$/g, "")) === 4;
  let bits = 128;
  if (prefix !== undefined) {
    if (!/^\d{1,3}$/.test(prefix)) return null;
    const p = Number(prefix);
    if (p > (v4 ? 32 : 128)) return null;
    bits = v4 ? 96 + p : p;
  }
  const mask = bits === 0 ? 0n : ((1n << 128n) - 1n) ^ ((1n << BigInt(128 - bits)) - 1n);
  return { base: base & mask, bits };
}

export function cidrContains(cidr: Cidr, ip: bigint): boolean {
  if (cidr.bits === 0) return true;
  const shift = BigInt(128 - cidr.bits);
  return ip >> shift === cidr.base >> shift;
}

/** Splits a comma/newline/space separated list of IPs and CIDRs; returns parsed and invalid items. */
export function parseCidrList(text: string): { cidrs: Cidr[]; invalid: string[] } {
  const cidrs: Cidr[] = [];
  const invalid: string[] = [];
  for (const item of text.split(/[\s,]+/)) {
    if (!item) continue;
    const c = parseCidr(item);
    if (c) cidrs.push(c);
    else invalid.push(item);
  }
  return { cidrs, invalid };
}

export function ipInList(ip: string, cidrs: Cidr[]): boolean {
  const n = ipToBigInt(ip);
  return n !== null && cidrs.some((c) => cidrContains(c, n));
}

/**
 * The caller's address: the socket peer, or — only when the peer is a trusted proxy — the
 * right-most X-Forwarded-For entry that is not itself a trusted proxy.
 */
export function resolveClientIp(remoteAddress: string | undefined, forwardedFor: string | null, trusted: Cidr[]): string {
  let ip = normalizeIp(remoteAddress ?? "");
  if (!forwardedFor || trusted.length === 0 || !ipInList(ip, trusted)) return ip;
  const hops = forwardedFor
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeIp(hops[i]!);
    if (ipToBigInt(hop) === null) break;
    ip = hop;
    if (!ipInList(hop, trusted)) break;
  }
  return ip;
}

/** "::ffff:127.0.0.1" → "127.0.0.1"; strips brackets. */
export function normalizeIp(ip: string): string {
  // A plain IPv4 address (every peer on an IPv4 socket) is already normal.
  if (PLAIN_IPV4.test(ip)) return ip;
  const s = ip.trim().replace(/^\[|\]$/g, "");
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(s);
  return m ? m[1]! : s;
}
const PLAIN_IPV4 = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/**
 * Addresses that lead into the host or its network, or nowhere on the Internet: unspecified and
 * "this network" (0.0.0.0/8, ::), loopback, RFC 1918 private, CGNAT (cloud metadata services
 * such as 100.100.100.200 live there), link-local (169.254.169.254 metadata), multicast
 * (224.0.0.0/4, ff00::/8), reserved and broadcast (240.0.0.0/4 up to 255.255.255.255), IPv6
 * unique-local, link-local and the old site-local (fec0::/10), the deprecated IPv4-compatible
 * ::/96, and the local-use NAT64 prefix 64:ff9b:1::/48. IPv4-mapped IPv6 (::ffff:a.b.c.d, in
 * either notation) falls under the IPv4 ranges because addresses compare in one 128-bit space.
 * Left public on purpose: 198.18.0.0/15 (fake-IP DNS proxies answer every name from it, so
 * refusing it would refuse every name on such a host) and documentation ranges (not routed).
 */
const INTERNAL_RANGES = parseCidrList(
  "0.0.0.0/8 127.0.0.0/8 10.0.0.0/8 172.16.0.0/12 192.168.0.0/16 100.64.0.0/10 169.254.0.0/16 224.0.0.0/4 240.0.0.0/4 " +
    "::/96 fc00::/7 fe80::/10 fec0::/10 ff00::/8 64:ff9b:1::/48",
).cidrs;
const IPV4_MAPPED = 0xffffn << 32n;
const LOW_32 = 0xffffffffn;
/**
 * IPv6 forms that carry an IPv4 address which a gateway on the path would deliver to: such an
 * address is internal when the IPv4 address it carries is. 6to4 and Teredo with a public IPv4
 * address stay public.
 */
const EMBEDDED_V4: { prefix: Cidr; v4: (n: bigint) => bigint }[] = [
  // NAT64, well-known prefix (RFC 6052): the low 32 bits.
  { prefix: parseCidr("64:ff9b::/96")!, v4: (n) => n & LOW_32 },
  // SIIT IPv4-translated ::ffff:0:a.b.c.d (RFC 2765): the low 32 bits.
  { prefix: parseCidr("::ffff:0:0:0/96")!, v4: (n) => n & LOW_32 },
  // 6to4 2002:AABB:CCDD::/48 (RFC 3056): bits 16–47.
  { prefix: parseCidr("2002::/16")!, v4: (n) => (n >> 80n) & LOW_32 },
  // Teredo 2001:0::/32 (RFC 4380): the client's address, inverted, in the low 32 bits.
  { prefix: parseCidr("2001::/32")!, v4: (n) => ~n & LOW_32 },
];

/** Whether an IP address (any notation) is internal in the sense of INTERNAL_RANGES; false for non-IPs. */
export function isInternalAddress(ip: string): boolean {
  const n = ipToBigInt(ip);
  if (n === null) return false;
  if (INTERNAL_RANGES.some((c) => cidrContains(c, n))) return true;
  const carrier = EMBEDDED_V4.find((e) => cidrContains(e.prefix, n));
  return carrier !== undefined && INTERNAL_RANGES.some((c) => cidrContains(c, IPV4_MAPPED | carrier.v4(n)));
}

/** The error code of a connection refused for going to an internal address. */
export const INTERNAL_ADDRESS_CODE = "QIAO_INTERNAL_ADDRESS";
