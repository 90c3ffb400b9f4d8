import { describe, expect, it } from "vitest";
import type { LookupAddress } from "node:dns";
import { INTERNAL_ADDRESS_CODE } from "@/lib/net/ip";
import { InternalAddressError, internalAddressOf, publicOnlyLookup } from "@/lib/net/public-connect";

const lookup = (host: string, all: boolean) =>
  new Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[] }>((resolve) =>
    publicOnlyLookup(host, { all }, (error, address) => resolve({ error, address })),
  );

describe("publicOnlyLookup", () => {
  it("refuses a name that resolves to loopback, whether net asks for one address or all", async () => {
    for (const all of [false, true]) {
      const { error } = await lookup("localhost", all);
      expect(error).toBeInstanceOf(InternalAddressError);
      expect(error?.code).toBe(INTERNAL_ADDRESS_CODE);
      expect(error?.message).toMatch(/^localhost 解析到本机、内网或链路本地地址 (127\.0\.0\.1|::1)$/);
    }
  });
  it("passes DNS failures through unchanged", async () => {
    const { error } = await lookup("no-such-host.invalid", false);
    expect(error).not.toBeInstanceOf(InternalAddressError);
    expect(error?.code).toMatch(/^(ENOTFOUND|EAI_AGAIN)$/);
  });
});

describe("internalAddressOf", () => {
  it("names the internal address a literal is or a name resolves to", async () => {
    expect(await internalAddressOf("127.0.0.1")).toBe("127.0.0.1");
    expect(await internalAddressOf("[::1]")).toBe("::1");
    expect(await internalAddressOf("localhost")).toMatch(/^(127\.0\.0\.1|::1)$/);
    expect(await internalAddressOf("8.8.8.8")).toBeNull();
    expect(await internalAddressOf("no-such-host.invalid")).toBeNull();
  });
});
