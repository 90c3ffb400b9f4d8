// The client address as the edge server computed it. server.ts sets CLIENT_IP_HEADER on every
// request it hands to Next (after deleting any value the client sent), from the socket peer and
// X-Forwarded-For trusted only from TRUSTED_PROXY_CIDR.
import { env } from "@/lib/env";
import { parseCidrList, resolveClientIp, type Cidr } from "@/lib/net/ip";

export const CLIENT_IP_HEADER = "x-qiao-client-ip";

let trusted: Cidr[] | undefined;
export function trustedProxies(): Cidr[] {
  if (!trusted) {
    const { cidrs, invalid } = parseCidrList(env.TRUSTED_PROXY_CIDR);
    if (invalid.length) throw new Error(`TRUSTED_PROXY_CIDR has invalid entries: ${invalid.join(", ")}`);
    trusted = cidrs;
  }
  return trusted;
}

export function clientIpOf(remoteAddress: string | undefined, forwardedFor: string | null): string {
  return resolveClientIp(remoteAddress, forwardedFor, trustedProxies());
}

/** For route handlers: the address server.ts resolved, or "unknown" under a bare `next start`. */
export function requestIp(headers: Headers): string {
  return headers.get(CLIENT_IP_HEADER) || "unknown";
}
