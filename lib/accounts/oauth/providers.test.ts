import { describe, expect, it } from "vitest";
import { isSecureUrl } from "@/lib/options/registry";
import { OAUTH_MSG, providerErrorMessage, redirectUri } from "@/lib/accounts/oauth/providers";

describe("the words for a provider's ?error=", () => {
  it("names a declined authorization and an unreachable provider", () => {
    expect(providerErrorMessage("access_denied", "GitHub")).toBe(OAUTH_MSG.cancelled);
    expect(providerErrorMessage("temporarily_unavailable", "OIDC")).toBe(OAUTH_MSG.connectFailed("OIDC"));
    expect(providerErrorMessage("invalid_scope", "OIDC")).toBe("授权失败（invalid_scope）");
  });

  it("never repeats text from the link other than a plain error code", () => {
    for (const code of ["您的账号已被冻结，请联系 QQ 123", "<b>x</b>", "a b", "x".repeat(41)]) {
      expect(providerErrorMessage(code, "GitHub")).toBe("授权失败（unknown_error）");
    }
  });
});

describe("the callback address", () => {
  const req = new Request("https://console.internal:8443/api/oauth/github/authorize");
  it("is the provider's page under ServerAddress, without a trailing slash", () => {
    expect(redirectUri({ ServerAddress: "https://ai.example.com/" }, req, "github")).toBe("https://ai.example.com/oauth/github");
  });
  it("falls back to the request's origin when no server address is set", () => {
    expect(redirectUri({ ServerAddress: "" }, req, "oidc")).toBe("https://console.internal:8443/oauth/oidc");
  });
});

describe("a provider address", () => {
  it("must be https, or plain http on this machine only", () => {
    for (const ok of [
      "https://idp.example.com/x",
      "http://127.0.0.1:8080/.well-known/openid-configuration",
      "http://localhost/x",
      "http://[::1]:9/x",
    ]) {
      expect(isSecureUrl(ok), ok).toBe(true);
    }
    for (const bad of [
      "http://idp.example.com/x",
      "http://10.0.0.1/x",
      "http://127.0.0.1.nip.io/x",
      "ftp://idp.example.com",
      "not a url",
    ]) {
      expect(isSecureUrl(bad), bad).toBe(false);
    }
  });
});
