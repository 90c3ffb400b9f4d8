// The client address as the edge server computed it. Under `npm start` a relay worker resolves it
// (socket peer, X-Forwarded-For trusted only from TRUSTED_PROXY_CIDR) and hands every console
// request over with CLIENT_IP_HEADER plus CLIENT_IP_PROOF_HEADER, the per-boot secret the primary
// shared with its children (clientIpSecret), overwriting whatever the client sent. The console
// believes the address only with that proof, so under a bare `next start` or a serverless host,
// where no worker stands in front, a client cannot choose its address: it is "unknown".
import { timingSafeEqual } from "node:crypto";
import { clientIpSecret, env } from "@/lib/env";
import { parseCidrList, resolveClientIp, type Cidr } from "@/lib/net/ip";

export const CLIENT_IP_HEADER = "x-qiao-client-ip";
export const CLIENT_IP_PROOF_HEADER = "x-qiao-client-ip-proof";
export const UNKNOWN_IP = "unknown";

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

/** The headers a relay worker sets on a request it hands to the console. */
export function clientIpHeaders(ip: string): Record<string, string> {
  return { [CLIENT_IP_HEADER]: ip, [CLIENT_IP_PROOF_HEADER]: clientIpSecret() };
}

let secretBytes: Buffer | undefined;
function proven(proof: string | null): boolean {
  if (!proof) return false;
  secretBytes ??= Buffer.from(clientIpSecret());
  const given = Buffer.from(proof);
  return given.length === secretBytes.length && timingSafeEqual(given, secretBytes);
}

/** For route handlers: the address a relay worker of this boot vouched for, else "unknown". */
export function requestIp(headers: Headers): string {
  const ip = headers.get(CLIENT_IP_HEADER);
  return ip && proven(headers.get(CLIENT_IP_PROOF_HEADER)) ? ip : UNKNOWN_IP;
}
