import { describe, expect, it } from "vitest";
import { open, seal, sha256Hex } from "@/lib/crypto/secret-box";

describe("secret box", () => {
  it("round-trips and never stores the plain text", () => {
    const sealed = seal("sk-abcdef");
    expect(sealed).not.toContain("abcdef");
    expect(open(sealed)).toBe("sk-abcdef");
    expect(seal("x")).not.toBe(seal("x"));
  });
  it("refuses a tampered value", () => {
    const sealed = seal("secret");
    const parts = sealed.split(":");
    parts[2] = Buffer.from("other").toString("base64url");
    expect(() => open(parts.join(":"))).toThrow();
    expect(() => open("plain-text")).toThrow();
  });
  it("hashes deterministically", () => {
    expect(sha256Hex("a")).toBe("ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb");
  });
});
