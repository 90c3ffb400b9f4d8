import { describe, expect, it } from "vitest";
import { hideSecrets, maskSensitiveText } from "./mask";

describe("maskSensitiveText", () => {
  it("masks keys the upstream echoes back, whatever their vendor", () => {
    const openai = `Incorrect API key provided: sk-proj-${"Ab1".repeat(16)}. You can find your API key at https://platform.openai.com/account/api-keys.`;
    expect(maskSensitiveText(openai)).toBe("Incorrect API key provided: sk-***. You can find your API key at [url].");
    expect(maskSensitiveText(`x-api-key sk-ant-api03-${"a_b-C9".repeat(15)} is invalid`)).toBe("x-api-key sk-*** is invalid");
    expect(maskSensitiveText(`API key not valid: AIzaSyD${"x9".repeat(16)}`)).toBe("API key not valid: AIza***");
    expect(maskSensitiveText("credential AKIAIOSFODNN7EXAMPLE rejected")).toBe("credential AKIA*** rejected");
    expect(maskSensitiveText(`token hf_${"aB3".repeat(10)} and gsk_${"q7".repeat(12)}`)).toBe("token hf_*** and gsk_***");
  });

  it("masks bearer tokens, assigned secrets and JWTs", () => {
    expect(maskSensitiveText("header Authorization: Bearer abc.def-ghi was refused")).toBe("header Authorization: Bearer *** was refused");
    expect(maskSensitiveText("Basic dXNlcjpwYXNzd29yZA== denied; basic plan has no token limit")).toBe(
      "Basic *** denied; basic plan has no token limit",
    );
    expect(maskSensitiveText("GET /v1/x?api_key=abcd1234&model=m failed; password=hunter2")).toBe(
      "GET /v1/x?api_key=***&model=m failed; password=***",
    );
    expect(maskSensitiveText('echo {"api_key": "s3cr3t-value", "model": "m"}')).toBe('echo {"api_key": "***", "model": "m"}');
    expect(
      maskSensitiveText("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U expired"),
    ).toBe("jwt *** expired");
  });

  it("masks long key-shaped strings (hex, base62) but not model names", () => {
    const hex = "3f2a9c0d41b7e85f6a2c9d0e1f3b4a5c";
    expect(maskSensitiveText(`invalid key ${hex}.abcdefABCDEF1234`)).toBe("invalid key ***.abcdefABCDEF1234");
    expect(maskSensitiveText(`key ${"A1b2C3d4".repeat(6)} revoked`)).toBe("key *** revoked");
    for (const model of [
      "claude-3-5-sonnet-20241022",
      "DeepSeek-R1-Distill-Qwen-32B",
      "Meta-Llama-3.1-405B-Instruct-Turbo",
      "text-embedding-3-large",
      "deepseek-ai/DeepSeek-V3.1",
      "Qwen2.5-VL-72B-Instruct",
    ]) {
      const message = `The model \`${model}\` does not exist or you do not have access to it.`;
      expect(maskSensitiveText(message)).toBe(message);
    }
  });

  it("masks URLs, host names and IP addresses, keeping field paths and times", () => {
    expect(maskSensitiveText("POST https://api.secret.example/v1/x: dial tcp 10.1.2.3:443 via proxy.corp.example.com:8080")).toBe(
      "POST [url]: dial tcp [host] via [host]",
    );
    expect(maskSensitiveText("upstream gpu-7.internal refused; retry api.vendor.cn or localhost:11434")).toBe(
      "upstream [host] refused; retry [host] or [host]",
    );
    expect(maskSensitiveText("connect to [fe80::1%eth0]:8080 and ::1 and 2001:db8::8a2e:370:7334 failed")).toBe(
      "connect to [host] and [host] and [host] failed",
    );
    expect(maskSensitiveText("see http://10.0.0.5:8000/v1, then (https://x.io/a).")).toBe("see [url], then ([url]).");
    const fields = "messages.0.content.0.text: Field required; generation_config.top_k must be > 0 at 12:30:45";
    expect(maskSensitiveText(fields)).toBe(fields);
    const plain = "The server had an error while processing your request. Sorry about that!";
    expect(maskSensitiveText(plain)).toBe(plain);
    expect(maskSensitiveText("当前分组上游负载已饱和，请稍后再试")).toBe("当前分组上游负载已饱和，请稍后再试");
  });
});

describe("hideSecrets", () => {
  it("cuts the channel's key, its lines and its | parts out of upstream text", () => {
    expect(hideSecrets("Incorrect API key provided: plainkey123456. Retry.", "plainkey123456")).toBe(
      "Incorrect API key provided: ***. Retry.",
    );
    expect(hideSecrets("bad: second-line-key and first-line-key", "first-line-key\nsecond-line-key")).toBe("bad: *** and ***");
    expect(
      hideSecrets("The security token AKIAEXAMPLE99 with secret wJalrXUtnFEMI is invalid", "AKIAEXAMPLE99|wJalrXUtnFEMI|us-east-1"),
    ).toBe("The security token *** with secret *** is invalid");
  });

  it("leaves text without the key alone, and ignores parts too short to be secret", () => {
    expect(hideSecrets("region us-east-1 unavailable", "AKIAEXAMPLE99|wJalrXUtnFEMI|us")).toBe("region us-east-1 unavailable");
    expect(hideSecrets("model abc failed", "abc")).toBe("model abc failed");
    expect(hideSecrets("", "")).toBe("");
  });

  it("masks every key- or token-shaped string, not only the channel's key", () => {
    const googleToken = `ya29.a0AfB_byC${"x1Y-_".repeat(30)}`;
    expect(hideSecrets(`echo: Authorization=${googleToken}; seen ${googleToken}.`, "other-key-000")).toBe(
      "echo: Authorization=ya29.***; seen ya29.***.",
    );
    expect(hideSecrets(`{"error":{"message":"got header Bearer ${googleToken}"}}`)).toBe('{"error":{"message":"got header Bearer ***"}}');
    expect(hideSecrets(`keys sk-ant-api03-${"Zz9_".repeat(20)} and sk-proj-${"Ab1".repeat(16)} refused`)).toBe(
      "keys sk-*** and sk-*** refused",
    );
    expect(hideSecrets("AKIAIOSFODNN7EXAMPLE / ASIAY34FZKBOKMUTVV7A were denied")).toBe("AKIA*** / ASIA*** were denied");
    expect(hideSecrets(`bad AIzaSyD${"x9".repeat(16)}`)).toBe("bad AIza***");
    expect(hideSecrets("jwt eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0.c2lnbmF0dXJlLXBhcnQ is expired")).toBe("jwt *** is expired");
    expect(hideSecrets("x-api-key: plainsecret123 Authorization: Token abcdef12345")).toBe("x-api-key: *** Authorization: ***");
    expect(hideSecrets(`?key=${"a1b2".repeat(8)}&token=${"QkFTRTY0".repeat(4)}==&secret=${"f0".repeat(16)}`)).toBe(
      "?key=***&token=***&secret=***",
    );
    expect(hideSecrets(`invalid api key ${"3f2a9c0d".repeat(4)}; secret: ${"Zm9vYmFy".repeat(4)}==`)).toBe(
      "invalid api key ***; secret: ***",
    );
    expect(hideSecrets('echo {"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIE…\\n-----END PRIVATE KEY-----\\n"}')).toBe(
      'echo {"private_key": "***"}',
    );
    expect(hideSecrets("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY----- leaked")).toBe("*** leaked");
  });

  it("leaves what an admin needs to debug: hosts, URLs, model names, request ids", () => {
    const message =
      "model claude-3-5-sonnet@20240620 not found in us-central1 at https://us-central1-aiplatform.googleapis.com/v1/projects/p (request id req_011CZ, key invalid, key claude-3-5-sonnet-20241022)";
    expect(hideSecrets(message, "sk-unrelated-key")).toBe(message);
    expect(hideSecrets("当前分组上游负载已饱和，请稍后再试")).toBe("当前分组上游负载已饱和，请稍后再试");
  });
});
