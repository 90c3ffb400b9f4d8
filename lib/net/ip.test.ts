import { describe, expect, it } from "vitest";
import { ipInList, ipToBigInt, isInternalAddress, normalizeIp, parseCidr, parseCidrList, resolveClientIp } from "@/lib/net/ip";

describe("ip parsing and CIDR", () => {
  it("matches exact IPv4, IPv4 CIDR and IPv4-mapped IPv6", () => {
    const { cidrs } = parseCidrList("1.2.3.4\n10.0.0.0/8");
    expect(ipInList("1.2.3.4", cidrs)).toBe(true);
    expect(ipInList("1.2.3.5", cidrs)).toBe(false);
    expect(ipInList("10.255.1.2", cidrs)).toBe(true);
    expect(ipInList("::ffff:10.1.1.1", cidrs)).toBe(true);
    expect(ipInList("11.0.0.1", cidrs)).toBe(false);
  });
  it("matches IPv6 CIDRs", () => {
    const { cidrs } = parseCidrList("2001:db8::/32, ::1");
    expect(ipInList("2001:db8:1::5", cidrs)).toBe(true);
    expect(ipInList("2001:db9::1", cidrs)).toBe(false);
    expect(ipInList("::1", cidrs)).toBe(true);
    expect(ipInList("[::1]", cidrs)).toBe(true);
  });
  it("rejects malformed entries", () => {
    const { invalid } = parseCidrList("1.2.3.4/33 300.1.1.1 abc 1.2.3.0/24");
    expect(invalid).toEqual(["1.2.3.4/33", "300.1.1.1", "abc"]);
    expect(parseCidr("::/129")).toBeNull();
    expect(ipToBigInt("1.2.3")).toBeNull();
  });
  it("0.0.0.0/0 matches every IPv4 but no IPv6", () => {
    const { cidrs } = parseCidrList("0.0.0.0/0");
    expect(ipInList("8.8.8.8", cidrs)).toBe(true);
    expect(ipInList("2001:db8::1", cidrs)).toBe(false);
  });
  it("normalizes mapped addresses", () => {
    expect(normalizeIp("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(normalizeIp("[::1]")).toBe("::1");
    expect(normalizeIp("10.0.0.1")).toBe("10.0.0.1");
    expect(normalizeIp(" 10.0.0.1 ")).toBe("10.0.0.1");
  });
});

describe("resolveClientIp", () => {
  const trusted = parseCidrList("127.0.0.1, 10.0.0.0/8").cidrs;
  it("ignores X-Forwarded-For from an untrusted peer", () => {
    expect(resolveClientIp("203.0.113.9", "1.1.1.1", trusted)).toBe("203.0.113.9");
  });
  it("ignores X-Forwarded-For when no proxy is trusted", () => {
    expect(resolveClientIp("127.0.0.1", "1.1.1.1", [])).toBe("127.0.0.1");
  });
  it("takes the right-most untrusted hop behind trusted proxies", () => {
    expect(resolveClientIp("::ffff:127.0.0.1", "6.6.6.6, 198.51.100.7, 10.0.0.3", trusted)).toBe("198.51.100.7");
  });
  it("stops at a garbage hop instead of trusting what is left of it", () => {
    expect(resolveClientIp("127.0.0.1", "6.6.6.6, junk", trusted)).toBe("127.0.0.1");
  });
});

describe("isInternalAddress", () => {
  it("covers loopback, private, link-local, CGNAT and unspecified, in IPv4 and IPv6", () => {
    for (const ip of [
      "127.0.0.1",
      "127.255.0.9",
      "0.0.0.0",
      "0.1.2.3",
      "10.0.0.1",
      "172.16.0.1",
      "172.31.255.254",
      "192.168.0.1",
      "169.254.169.254",
      "100.64.0.1",
      "100.100.100.200",
      "::1",
      "::",
      "[::1]",
      "fc00::1",
      "fd00:ec2::254",
      "fe80::1",
      "fe80::1%eth0",
      "fec0::1",
      "64:ff9b:1::a00:1",
    ]) {
      expect(isInternalAddress(ip), ip).toBe(true);
    }
  });
  it("covers multicast, reserved and broadcast", () => {
    for (const ip of [
      "224.0.0.1",
      "239.255.255.250",
      "240.0.0.1",
      "255.255.255.254",
      "255.255.255.255",
      "ff02::1",
      "ff05::1:3",
      "::ffff:224.0.0.1",
    ]) {
      expect(isInternalAddress(ip), ip).toBe(true);
    }
    expect(isInternalAddress("223.255.255.255")).toBe(false);
  });
  it("sees IPv4 inside IPv6: mapped in either notation, IPv4-compatible and NAT64", () => {
    for (const ip of [
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:a00:1",
      "::ffff:169.254.169.254",
      "::127.0.0.1",
      "64:ff9b::7f00:1",
      "64:ff9b::10.0.0.1",
      "::ffff:0:127.0.0.1",
      "2002:7f00:1::",
      "2002:a9fe:a9fe::1",
      "2002:c0a8:101:1::1",
      "2001:0:4136:e378:8000:63bf:80ff:fffe",
    ]) {
      expect(isInternalAddress(ip), ip).toBe(true);
    }
    // The same forms carrying a public IPv4 address stay public.
    for (const ip of [
      "::ffff:8.8.8.8",
      "64:ff9b::8.8.8.8",
      "::ffff:0:8.8.8.8",
      "2002:808:808::1",
      "2001:0:4136:e378:8000:63bf:f7f7:f7f7",
    ]) {
      expect(isInternalAddress(ip), ip).toBe(false);
    }
  });
  it("leaves public addresses and non-addresses alone", () => {
    for (const ip of [
      "8.8.8.8",
      "1.1.1.1",
      "172.32.0.1",
      "172.15.255.255",
      "100.128.0.1",
      "192.169.0.1",
      "2606:4700::1111",
      "2001:4860:4860::8888",
      // Fake-IP DNS proxies answer every name from 198.18.0.0/15: left public on purpose.
      "198.18.0.1",
      "localhost",
      "",
    ]) {
      expect(isInternalAddress(ip), ip).toBe(false);
    }
  });
});
