// Against AWS's published SigV4 test suite (aws-sig-v4-test-suite): credentials AKIDEXAMPLE /
// wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY, region us-east-1, service "service", 20150830T123600Z.
import { describe, expect, it } from "vitest";
import { signV4 } from "./sigv4";

const creds = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };
const date = new Date("2015-08-30T12:36:00Z");
const sign = (method: string, url: string, headers: Record<string, string> = {}, body = "") =>
  signV4({ method, url: new URL(url), headers, body, region: "us-east-1", service: "service", date }, creds);
const auth = (signed: string, sig: string) =>
  `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=${signed}, Signature=${sig}`;

describe("SigV4 against AWS's test suite", () => {
  it("get-vanilla", () => {
    const r = sign("GET", "https://example.amazonaws.com/");
    expect(r.canonicalRequest).toBe(
      "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
    expect(r.authorization).toBe(auth("host;x-amz-date", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"));
    expect(r.headers).toMatchObject({ "x-amz-date": "20150830T123600Z", Authorization: r.authorization });
  });

  it("get-vanilla-query-order-key-case", () => {
    expect(sign("GET", "https://example.amazonaws.com/?Param2=value2&Param1=value1").signature).toBe(
      "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500",
    );
  });

  it("post-vanilla", () => {
    expect(sign("POST", "https://example.amazonaws.com/").authorization).toBe(
      auth("host;x-amz-date", "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
    );
  });

  it("post-x-www-form-urlencoded (a signed body and content type)", () => {
    const r = sign("POST", "https://example.amazonaws.com/", { "Content-Type": "application/x-www-form-urlencoded" }, "Param1=value1");
    expect(r.authorization).toBe(auth("content-type;host;x-amz-date", "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"));
  });

  it("signs Bedrock's model path encoded twice, as AWS services but S3 expect", () => {
    const r = signV4(
      {
        method: "POST",
        url: new URL("https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-sonnet-20241022-v2%3A0/invoke"),
        headers: { "content-type": "application/json" },
        body: "{}",
        region: "us-east-1",
        service: "bedrock",
        date,
      },
      creds,
    );
    expect(r.canonicalRequest.split("\n")[1]).toBe("/model/anthropic.claude-3-5-sonnet-20241022-v2%253A0/invoke");
    expect(r.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20150830\/us-east-1\/bedrock\/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=[0-9a-f]{64}$/,
    );
  });
});
